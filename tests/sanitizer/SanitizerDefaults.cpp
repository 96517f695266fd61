// Sanitizer options compiled into every executable of the dev preset, so that a sanitizer report
// fails the test however the program was started (ctest, a test spawning pipescope-cli, mpirun)
// and the suppression files (third-party noise only) always apply.

#ifndef PIPESCOPE_SANITIZER_DIR
#error "PIPESCOPE_SANITIZER_DIR must name tests/sanitizer"
#endif

extern "C" {

const char* __asan_default_options() {
  return "detect_leaks=1:abort_on_error=0:halt_on_error=1";
}

const char* __ubsan_default_options() {
  return "print_stacktrace=1:halt_on_error=1:suppressions=" PIPESCOPE_SANITIZER_DIR "/ubsan.supp";
}

const char* __lsan_default_options() {
  return "print_suppressions=0:suppressions=" PIPESCOPE_SANITIZER_DIR "/lsan.supp";
}

}  // extern "C"
