// The library applications and deploy packages import: it re-exports the model
// layer so that `import ModelMigration` is enough to load, compile and migrate.
@_exported import DataModel
@_exported import Mapping
@_exported import Predicates
@_exported import SQLiteStore
