// The translation unit that builds the core tests' precompiled header (tests/CMakeLists.txt):
// nothing of its own.
