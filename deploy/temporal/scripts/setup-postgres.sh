#!/bin/sh
# Creates Temporal's two PostgreSQL databases and brings their schemas up to date. Idempotent.
# docker-compose.yml runs it in the admin-tools image; `npm run cluster` runs it natively with the
# provisioned temporal-sql-tool on PATH and SCHEMA_DIR set (src/cluster/schema.ts).
set -eu
PLUGIN=${SQL_PLUGIN:-postgres12}
PORT=${POSTGRES_PORT:-5432}
SCHEMA_DIR=${SCHEMA_DIR:-/etc/temporal/schema/postgresql/v12}
ARGS="--plugin $PLUGIN --ep ${POSTGRES_SEEDS} -u ${POSTGRES_USER} --pw ${POSTGRES_PWD} -p $PORT"

if command -v nc >/dev/null; then
  until nc -z -w 5 "${POSTGRES_SEEDS}" "$PORT"; do echo 'waiting for PostgreSQL…'; sleep 2; done
fi

setup() { # <database> <schema folder>
  # A fresh database gets the base schema; an existing one only the updates below.
  if temporal-sql-tool $ARGS --db "$1" create; then
    temporal-sql-tool $ARGS --db "$1" setup-schema -v 0.0
  fi
  temporal-sql-tool $ARGS --db "$1" update-schema -d "$SCHEMA_DIR/$2/versioned"
}
setup "${DBNAME:-temporal}" temporal
setup "${VISIBILITY_DBNAME:-temporal_visibility}" visibility
echo 'Temporal schema is ready'
