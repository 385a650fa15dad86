#!/bin/sh
# As the official haproxy image's entrypoint: options alone run haproxy with
# them; `haproxy ...` runs it in master-worker mode in the foreground.
set -e
if [ "${1#-}" != "$1" ]; then
    set -- haproxy "$@"
fi
if [ "$1" = 'haproxy' ]; then
    shift
    set -- haproxy -W -db "$@"
fi
exec "$@"
