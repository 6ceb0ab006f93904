/// The rate and the time left of work counted in units (rows, objects, stores),
/// from the units actually done in the time they took: a pure function of `done`,
/// `total` and `elapsed`, so that every progress line (`apply`, `load`, `dump`,
/// `fleet apply`) tells the same truth.
///
/// A rate is shown only once it rests on evidence: at least ``minimumSeconds`` of
/// work and ``minimumFraction`` of the total done (a step that has visited 20 rows of
/// a million after half a second of setting up says nothing about the next
/// million). Without a total there is no time left; when the work is done, none either.
public struct ProgressEstimate: Sendable, Hashable {
    /// Units done.
    public var done: Int64
    /// Units in all, when known.
    public var total: Int64?
    /// Seconds since the units started being done.
    public var elapsed: Double

    /// Seconds of work before a rate is shown.
    public static let minimumSeconds = 1.0
    /// The share of the total done before a rate is shown.
    public static let minimumFraction = 0.01

    /// Creates an estimate.
    public init(done: Int64, total: Int64?, elapsed: Double) {
        self.done = done
        self.total = total
        self.elapsed = elapsed
    }

    /// Units a second, once enough work was done to measure it; nil before.
    public var rate: Double? {
        guard done > 0, elapsed.isFinite, elapsed >= Self.minimumSeconds else { return nil }
        if let total, total > 0, Double(done) < Double(total) * Self.minimumFraction { return nil }
        return Double(done) / elapsed
    }

    /// Whole seconds left at ``rate``; nil without a rate, without a total, or when done.
    public var secondsLeft: Int64? {
        guard let rate, rate > 0, let total, total > done else { return nil }
        let left = (Double(total - done) / rate).rounded(.up)
        return left.isFinite ? Int64(min(left, 1e9)) : nil
    }

    /// `500000/1000000 rows, 412345 rows/s, ETA 2 s`; `20/1000000 rows` before a
    /// rate means something; `1234 objects, 5678 objects/s` without a total.
    public func text(unit: String) -> String {
        var line = "\(done)\(total.map { "/\($0)" } ?? "") \(unit)"
        if let rate { line += ", \(Int64(rate.rounded())) \(unit)/s" }
        if let secondsLeft { line += ", ETA \(secondsLeft) s" }
        return line
    }
}
