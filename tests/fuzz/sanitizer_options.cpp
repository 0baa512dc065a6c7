// Default options for the sanitizer builds (the GoogleTest suite and the fuzzers of
// -DMULTIHEAD_SANITIZE=ON), linked into those only: a stack trace with every UBSan report, which
// prints none by default, and function names from llvm-14's symbolizer, which ASan does not find
// under its versioned name. ASAN_OPTIONS and UBSAN_OPTIONS in the environment still override them.
extern "C" const char* __ubsan_default_options() { return "print_stacktrace=1"; }
extern "C" const char* __asan_default_options() { return "external_symbolizer_path=/usr/bin/llvm-symbolizer-14"; }
