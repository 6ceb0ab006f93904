import DataModel
import Mapping
import SQLiteStore

extension Outcome {
    /// The outcome of any error the toolkit throws: the one place where an error
    /// becomes an exit code, a status word and a message.
    ///
    /// - `Outcome` is itself; `PlanningError`, `StoreOpenError` and `RequestError`
    ///   by their kinds; `UnknownVersionError` an unknown version; `InferenceFailure`
    ///   no path; `DiagnosticsError` a failure with its diagnostics; `SQLiteError`
    ///   a failure explained (a full disk says so); `MigrationError` a failure (of
    ///   kind `dataRefused`, no path, as `plan` refuses the same data). The
    ///   statement that failed, if any, goes to ``statement``, not the message.
    /// - `MigrationError` of kind `interrupted` is `interrupted(signal:)` when
    ///   `signal` says which signal cancelled the work, else a failure.
    /// - Anything else fails (exit 1) with its description.
    public init(_ error: any Error, signal: Int32? = nil) {
        switch error {
        case let outcome as Outcome:
            self = outcome
        case let error as PlanningError:
            self.init(Self.kind(of: error.kind), error.message)
        case let error as StoreOpenError:
            self.init(error.kind, error.message)
        case let error as RequestError:
            self.init(error.kind == .invalidRequest ? .usage : .failed, error.message)
        case let error as UnknownVersionError:
            self.init(.unknownVersion, error.description)
        case let error as InferenceFailure:
            self.init(.noPath, error.description)
        case let error as DiagnosticsError:
            let errors = error.diagnostics.filter { $0.severity == .error }
            let message =
                errors.count == 1
                ? errors[0].description
                : "\(errors.count) errors in the models or mapping files: "
                    + errors.map(\.description).joined(separator: "; ")
            self.init(.failed, message, diagnostics: error.diagnostics)
        case let error as MigrationError where error.kind == .interrupted && signal != nil:
            self.init(.interrupted(signal: signal ?? 0), error.message)
        case let error as MigrationError where error.kind == .dataRefused:
            self.init(.noPath, error.message)
        case let error as MigrationError:
            self.init(.failed, error.message, statement: error.statement)
        case let error as SQLiteError:
            self.init(.failed, error.explained, statement: error.sql)
        default:
            self.init(.failed, "\(error)")
        }
    }

    /// The outcome of a planning refusal of `kind`.
    static func kind(of kind: PlanningError.Kind) -> Kind {
        switch kind {
        case .noPath: .noPath
        case .unknownVersion: .unknownVersion
        case .storeMismatch, .failed: .failed
        case .unknownTarget: .usage
        }
    }
}
