import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The system's words for a file error: the POSIX error under Foundation's (`Not a
/// directory`, `No space left on device`), else the error as it is. On Linux a
/// Foundation file error describes itself as "NSCocoaErrorDomain Code=512 (null)".
package enum SystemReason {
    package static func text(_ error: any Error) -> String {
        var current = error as NSError
        // On Linux the underlying error is held as a Swift `Error`, which `as? NSError` misses.
        while current.domain != NSPOSIXErrorDomain,
            let underlying = current.userInfo[NSUnderlyingErrorKey] as? any Error
        {
            current = underlying as NSError
        }
        return current.domain == NSPOSIXErrorDomain ? String(cString: strerror(Int32(current.code))) : "\(error)"
    }
}
