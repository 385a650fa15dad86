#!/usr/bin/env bash
# Entrypoint of the postgres stand-in (scripts/compose-standins.sh), doing
# what the official image's docker-entrypoint.sh does for compose.yaml:
#
# - a command starting with `-` gets `postgres` prepended;
# - for `postgres`, as root: PGDATA (default /var/lib/postgresql/data, a
#   volume) is made the postgres user's, then this script runs again as
#   postgres (setpriv);
# - on an empty PGDATA: initdb with POSTGRES_USER as superuser and
#   POSTGRES_PASSWORD as its password, scram-sha-256 for TCP from anywhere,
#   listen_addresses='*'; POSTGRES_DB is created; /docker-entrypoint-initdb.d
#   *.sql (psql) and *.sh (executed, or sourced when not executable) run once,
#   in name order, against POSTGRES_DB as POSTGRES_USER, on a server that
#   listens on its Unix socket only; then that server stops;
# - a PGDATA that holds a cluster (PG_VERSION) is used as it is;
# - finally the command is exec'd (postgres in the foreground, PID 1).
set -Eeuo pipefail

say() { echo "docker-entrypoint: $*" >&2; }

if [ "${1:-}" = "" ] || [ "${1:0:1}" = "-" ]; then
    set -- postgres "$@"
fi

export PGDATA="${PGDATA:-/var/lib/postgresql/data}"
export POSTGRES_USER="${POSTGRES_USER:-postgres}"
export POSTGRES_DB="${POSTGRES_DB:-$POSTGRES_USER}"

if [ "$1" != "postgres" ]; then
    exec "$@"
fi

if [ "$(id -u)" = "0" ]; then
    mkdir -p "$PGDATA" /var/run/postgresql
    chmod 700 "$PGDATA"
    chmod 3777 /var/run/postgresql
    # Only what is not the postgres user's already (a large data dir stays put).
    find "$PGDATA" \! -user postgres -exec chown postgres:postgres '{}' +
    chown postgres:postgres /var/run/postgresql
    exec setpriv --reuid=postgres --regid=postgres --init-groups "${BASH_SOURCE[0]}" "$@"
fi

if [ ! -s "$PGDATA/PG_VERSION" ]; then
    if [ -z "${POSTGRES_PASSWORD:-}" ]; then
        say "the database is uninitialized and POSTGRES_PASSWORD is not set."
        exit 1
    fi
    say "initialising a new cluster in $PGDATA (superuser $POSTGRES_USER)"
    # shellcheck disable=SC2086 # POSTGRES_INITDB_ARGS is a list of words, as upstream.
    initdb --username="$POSTGRES_USER" --pwfile=<(printf '%s\n' "$POSTGRES_PASSWORD") \
        --encoding=UTF8 --auth-local=trust --auth-host=scram-sha-256 \
        ${POSTGRES_INITDB_ARGS:-} -D "$PGDATA" >&2
    {
        echo
        echo "# docker-entrypoint.sh: password auth over TCP from anywhere"
        echo "host all all all scram-sha-256"
    } >>"$PGDATA/pg_hba.conf"
    printf "\nlisten_addresses = '*'\n" >>"$PGDATA/postgresql.conf"

    # A temporary server on the Unix socket only, so no client (nor a TCP
    # healthcheck) sees the database before the init scripts have run.
    pg_ctl -D "$PGDATA" -w -o "-c listen_addresses='' -p 5432" start >&2
    psql_base=(psql -v ON_ERROR_STOP=1 --no-psqlrc --username "$POSTGRES_USER")
    if [ "$POSTGRES_DB" != "postgres" ]; then
        "${psql_base[@]}" --dbname postgres --set db="$POSTGRES_DB" <<<'CREATE DATABASE :"db";' >&2
    fi
    export PGUSER="$POSTGRES_USER" PGDATABASE="$POSTGRES_DB"
    shopt -s nullglob
    for f in /docker-entrypoint-initdb.d/*; do
        case "$f" in
            *.sh)
                if [ -x "$f" ]; then
                    say "running $f"; "$f"
                else
                    say "sourcing $f"
                    # shellcheck disable=SC1090
                    . "$f"
                fi
                ;;
            *.sql)
                say "running $f"
                "${psql_base[@]}" --dbname "$POSTGRES_DB" -f "$f" >&2
                ;;
            *) say "ignoring $f" ;;
        esac
    done
    shopt -u nullglob
    unset PGUSER PGDATABASE
    pg_ctl -D "$PGDATA" -m fast -w stop >&2
    say "initialisation complete; starting the server"
else
    say "$PGDATA holds a cluster already (PostgreSQL $(cat "$PGDATA/PG_VERSION")); skipping initialisation"
fi

exec "$@"
