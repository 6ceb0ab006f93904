import CDispatch
import Foundation
import ScratchFiles

/// A thread started with `pthread_create`, so that a thread that cannot be started
/// (no memory left for its stack under a small `ulimit -v`, a process limit) is an
/// error the caller handles. Foundation's `Thread` and libdispatch give no such
/// answer: libdispatch retries forever at 0 % CPU, and a run waiting for a thread
/// that never started hangs.
package final class OSThread {
    /// Why a thread could not be started.
    package struct StartError: Error, Sendable, CustomStringConvertible {
        /// The errno `pthread_create` returned.
        package var code: Int32
        package var description: String {
            """
            cannot start a thread (\(String(cString: strerror(code)))): raise the memory or process limits (`ulimit \
            -v`, `ulimit -u`)
            """
        }
    }

    private final class Body {
        let run: () -> Void
        let inherited: AnyObject?
        init(_ run: @escaping () -> Void, inherited: AnyObject?) {
            self.run = run
            self.inherited = inherited
        }
    }

    private let handle: pthread_t
    private var joined = false

    private init(handle: pthread_t) { self.handle = handle }

    /// Starts `body` on a new thread with a stack of `stackSize` bytes.
    package static func start(stackSize: Int, _ body: @escaping () -> Void) throws(StartError) -> OSThread {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, stackSize)
        let context = Unmanaged.passRetained(Body(body, inherited: ThreadInherited.value)).toOpaque()
        #if canImport(Darwin)
            var handle: pthread_t?
        #else
            var handle = pthread_t()
        #endif
        let code = pthread_create(
            &handle, &attributes,
            { context in
                let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
                ThreadInherited.value = body.inherited
                body.run()
                ThreadInherited.value = nil
                return nil
            }, context)
        guard code == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            throw StartError(code: code)
        }
        #if canImport(Darwin)
            return OSThread(handle: handle!)
        #else
            return OSThread(handle: handle)
        #endif
    }

    /// Waits for the thread to finish.
    package func join() {
        guard !joined else { return }
        joined = true
        pthread_join(handle, nil)
    }
}
