package io.gpupool.collector.publish;

/**
 * What the publisher did so far.
 *
 * @param sent     records the broker acknowledged
 * @param dropped  telemetry records given up: buffer full while Kafka was unreachable, or delivery failed
 * @param buffered records waiting in the bounded buffer now
 */
public record PublisherStats(long sent, long dropped, int buffered) {
}
