import DataModel
import Testing

@testable import Mapping

@Suite struct WideningTests {
    @Test(arguments: [
        (AttributeType.integer16, AttributeType.integer32, true), (.integer32, .integer64, true),
        (.integer16, .integer64, true),
        (.float, .double, true), (.integer32, .double, true), (.integer64, .decimal, true),
        (.integer64, .integer32, false), (.double, .float, false), (.string, .integer16, false),
        (.decimal, .double, false),
    ])
    func widening(from: AttributeType, to: AttributeType, widens: Bool) {
        #expect(MappingInference.isWidening(from, to: to) == widens)
    }
}
