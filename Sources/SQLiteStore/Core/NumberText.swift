/// Numbers as Foundation writes them.
package enum NumberText {
    /// `NSNumber(value: double).description`: an integral value within 2^53 without
    /// a fraction (`3`, `-120`), any other the shortest digits that read back as the
    /// same double (`0.3333333333333333`, `1e+20`, `5e-05`), as Swift prints it.
    package static func foundationDescription(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 { return String(Int64(value)) }
        return "\(value)"
    }
}
