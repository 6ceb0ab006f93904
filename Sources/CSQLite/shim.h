#include <sqlite3.h>

/// Turns off SQLite's memory statistics before the library initialises: with them
/// on, every allocation and free SQLite makes takes a global mutex (a few percent
/// of a row-by-row migration), and nothing here reads the statistics.
/// `sqlite3_config` is variadic, which Swift cannot call; this wrapper is not.
/// Returns SQLITE_MISUSE, harmlessly, once the library is initialised.
static inline int mm_sqlite3_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
