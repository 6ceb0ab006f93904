import Foundation

#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// A value each thread holds for itself and passes on to the threads it starts
/// (ModelMigration's `OSThread` does): the run of the tool a thread works for, so that
/// a command run in process beside others (the CLI's tests) keeps its output, and the
/// scratch entries its sweeps removed, its own from every thread.
///
/// Here, in the lowest module that needs it: what a run's sweeps removed is said by
/// that run (``ScratchFile/takeRemoved()``).
package enum ThreadInherited {
    /// This thread's value; nil until set.
    package static var value: AnyObject? {
        get {
            guard let pointer = pthread_getspecific(key) else { return nil }
            return Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue()
        }
        set {
            let old = pthread_getspecific(key)
            pthread_setspecific(key, newValue.map { Unmanaged.passRetained($0).toOpaque() })
            if let old { Unmanaged<AnyObject>.fromOpaque(old).release() }
        }
    }

    /// The key, made once; a thread that ends holding a value releases it.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let code = pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<AnyObject>.fromOpaque(pointer).release() }
        }
        precondition(code == 0, "pthread_key_create failed: the process is out of thread-specific keys")
        return key
    }()
}
