#!/bin/sh
# Waits for the Temporal frontend, then creates the namespace unless it exists. Idempotent.
set -eu
NAMESPACE=${NAMESPACE:-default}
ADDRESS=${TEMPORAL_ADDRESS:-temporal:7233}

until temporal operator cluster health --address "$ADDRESS"; do echo 'waiting for Temporal…'; sleep 3; done
temporal operator namespace describe -n "$NAMESPACE" --address "$ADDRESS" \
  || temporal operator namespace create -n "$NAMESPACE" --retention 72h --address "$ADDRESS"
echo "namespace $NAMESPACE is ready"
