/* asan preset only (LD_PRELOAD in the test environment): dlclose does nothing, so the GL driver
   modules stay mapped at exit and LeakSanitizer can name them; a leak in a module that was
   unloaded is reported as "<unknown module>" and no suppression can match it. */
int dlclose(void* handle) {
  (void)handle;
  return 0;
}
