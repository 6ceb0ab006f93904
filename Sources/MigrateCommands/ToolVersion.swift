/// The toolkit's release version, which `migrate --version` prints: bumped by the
/// release step in Docs/Development.md ("Releasing"), together with CHANGELOG.md's
/// top entry (a test holds the two equal).
package enum ToolVersion {
    /// `MAJOR.MINOR.PATCH`.
    package static let number = "0.4.0"
}
