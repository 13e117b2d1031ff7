#!/bin/sh
# Waits for the Temporal frontend, then creates the namespace unless it exists. Idempotent.
set -eu
NAMESPACE=${NAMESPACE:-default}
ADDRESS=${TEMPORAL_ADDRESS:-temporal:7233}

until temporal operator cluster health --address "$ADDRESS"; do echo 'waiting for Temporal…'; sleep 3; done
temporal operator namespace describe -n "$NAMESPACE" --address "$ADDRESS" \
  || temporal operator namespace create -n "$NAMESPACE" --retention 72h --address "$ADDRESS"
# Jobs are started with the JobType search attribute (jobctl list --type, the Web UI's filter);
# src/shared/search-attributes.ts lists the same attributes.
# A namespace just created takes a few seconds to reach every frontend's cache: retry until then.
has_job_type() { temporal operator search-attribute list -n "$NAMESPACE" --address "$ADDRESS" 2>/dev/null | grep -qw JobType; }
tries=0
until has_job_type; do
  temporal operator search-attribute create -n "$NAMESPACE" --name JobType --type Keyword --address "$ADDRESS" 2>/dev/null && continue
  tries=$((tries + 1))
  [ "$tries" -lt 30 ] || { echo "could not register the JobType search attribute on $NAMESPACE" >&2; exit 1; }
  sleep 2
done
echo "namespace $NAMESPACE is ready"
