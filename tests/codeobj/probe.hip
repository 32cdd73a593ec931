// probe.hip - compiled at configure time to learn which --offload-arch
// values this hipcc accepts.
__attribute__((global)) void hw_probe() {}
