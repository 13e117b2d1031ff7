#!/bin/sh
# Creates Temporal's two PostgreSQL databases and brings their schemas up to date. Idempotent.
set -eu
PLUGIN=postgres12
ARGS="--plugin $PLUGIN --ep ${POSTGRES_SEEDS} -u ${POSTGRES_USER} --pw ${POSTGRES_PWD} -p 5432"
SCHEMA_DIR=/etc/temporal/schema/postgresql/v12

until nc -z -w 5 "${POSTGRES_SEEDS}" 5432; do echo 'waiting for PostgreSQL…'; sleep 2; done

for db in temporal temporal_visibility; do
  case "$db" in temporal) dir=temporal ;; *) dir=visibility ;; esac
  # A fresh database gets the base schema; an existing one only the updates below.
  if temporal-sql-tool $ARGS --db "$db" create; then
    temporal-sql-tool $ARGS --db "$db" setup-schema -v 0.0
  fi
  temporal-sql-tool $ARGS --db "$db" update-schema -d "$SCHEMA_DIR/$dir/versioned"
done
echo 'Temporal schema is ready'
