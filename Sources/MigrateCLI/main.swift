// The shipped `migrate`: every command, with the example application's policies.
import MigrateCommands
import Migrations

MigrateTool.main(policies: examplePolicies)
