"""``python -m lgos_demo_launcher [flags]``: what `just demo` runs."""

from lgos_demo_launcher.run import main

try:
    status = main()
except KeyboardInterrupt:  # Ctrl-C before the services started
    status = 130
raise SystemExit(status)
