/**
 * How long a status read waits for a running job to answer its state query before reporting without
 * it (the record then says the workers are not answering): a status with no worker up answers in about this.
 */
export const stateQueryTimeoutMs = 1000;
