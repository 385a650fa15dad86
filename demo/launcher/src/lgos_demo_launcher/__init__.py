"""The launcher of the demo stack (`just demo`).

`lgos_demo_launcher.plan` decides a run from its flags and environment;
`lgos_demo_launcher.run` carries the plan out. Nothing in LGOS imports it.
"""
