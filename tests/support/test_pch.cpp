// The translation unit of the tests' precompiled headers' owners (tests/CMakeLists.txt):
// nothing of its own.
