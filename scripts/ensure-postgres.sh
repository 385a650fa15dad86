#!/usr/bin/env bash
# Install (once), start, and prepare a local PostgreSQL for development and tests.
# Idempotent. Creates the superuser role `lgos` (password `lgos`) and database `lgos`.
# Prints nothing on success when everything was already in place.
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

if ! command -v pg_lsclusters >/dev/null 2>&1; then
  echo "Installing Debian's postgresql..."
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql >/dev/null
fi

cluster=$(pg_lsclusters --no-header | head -n1)
if [ -z "$cluster" ]; then
  version=$(ls /usr/lib/postgresql | sort -V | tail -n1)
  $SUDO pg_createcluster "$version" main >/dev/null
  cluster=$(pg_lsclusters --no-header | head -n1)
fi
version=$(echo "$cluster" | awk '{print $1}')
name=$(echo "$cluster" | awk '{print $2}')
status=$(echo "$cluster" | awk '{print $4}')
if [ "$status" != "online" ]; then
  $SUDO pg_ctlcluster "$version" "$name" start
fi

as_postgres() {
  if [ -z "$SUDO" ]; then runuser -u postgres -- "$@"; else sudo -u postgres "$@"; fi
}

for _ in $(seq 1 50); do
  if as_postgres psql -Atqc "select 1" >/dev/null 2>&1; then break; fi
  sleep 0.2
done
if [ "$(as_postgres psql -Atqc "select 1 from pg_roles where rolname='lgos'")" != "1" ]; then
  as_postgres psql -qc "create role lgos login superuser password 'lgos'"
fi
if [ "$(as_postgres psql -Atqc "select 1 from pg_database where datname='lgos'")" != "1" ]; then
  as_postgres psql -qc "create database lgos owner lgos"
fi
