import Testing

@testable import MigrateCommands

/// `fleet apply`'s text report says a warning once for the stores that had it:
/// alike warnings differ only in their counts, never in a property's name.
@Suite struct FleetWarningGroupTests {
    @Test func alikeWarningsDifferOnlyInTheirCounts() {
        var state = FleetApplyState()
        state.add(warning: "destructive: Customer.addr1 is dropped: 12 non-nil values will be lost", of: "a.sqlite")
        state.add(warning: "destructive: Customer.addr2 is dropped: 12 non-nil values will be lost", of: "a.sqlite")
        state.add(warning: "destructive: Customer.addr1 is dropped: 1,204 non-nil values will be lost", of: "b.sqlite")
        state.add(warning: "destructive: Customer.addr1 is dropped: 3 non-nil values will be lost", of: "c.sqlite")
        #expect(
            state.warningLines == [
                "warning: 3 stores: destructive: Customer.addr1 is dropped: 12 non-nil values will be lost "
                    + "(at a.sqlite; each store's counts are in --json's records)",
                "warning: a.sqlite: destructive: Customer.addr2 is dropped: 12 non-nil values will be lost",
            ])
    }
}
