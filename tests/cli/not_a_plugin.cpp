// A shared object without Tempest's plugin entry point: loading it must fail with a clear error.
extern "C" int not_a_tempest_plugin() { return 42; }
