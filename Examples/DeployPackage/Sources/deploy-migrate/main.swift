// The deploy package's own `migrate`: every command, with its policies.
import DeployPolicies
import MigrateCommands

MigrateTool.main(policies: deployPolicies)
