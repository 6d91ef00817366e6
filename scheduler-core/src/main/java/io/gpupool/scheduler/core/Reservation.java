package io.gpupool.scheduler.core;

import java.util.List;

/**
 * Head-of-queue reservation (EASY backfill): the blocked job at the head of the queue, the stream
 * time by which running jobs' estimates say it can start, and the nodes it would get. Later jobs
 * start before it only if they end by then or stay off those nodes.
 */
public record Reservation(String jobId, long startAtMs, List<String> nodes) {
    public Reservation {
        nodes = List.copyOf(nodes);
    }
}
