package io.gpupool.sink;

import io.gpupool.topics.Topic;
import io.gpupool.topics.TopicCatalog;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How a sink runs: where Kafka and the registry are, which topics, which node (empty: all nodes),
 * where its ledger lives, and how it retries.
 *
 * @param clientProperties extra Kafka client settings (security.protocol, sasl.*, ...), applied to every client
 * @param node             serve only this node (a node-local agent); empty: every node
 * @param ownPartitionOnly with a node: read only the partition the node's key hashes to (Kafka's
 *                         default partitioner), instead of the whole topic
 * @param stateDir         where the ledger of applied commands is kept; one per sink process
 * @param stopWait         how long closing waits for stops in progress (grace periods)
 * @param stopThreads      threads that run stops (each waits out a grace period) and the starts that
 *                         wait for a stop on their GPUs; more stops at once queue for a thread
 */
public record SinkConfig(String bootstrapServers, Map<String, Object> clientProperties, String registryUrl,
                         TopicCatalog topics, String groupId, Optional<String> node, boolean ownPartitionOnly,
                         Path stateDir, RetryPolicy retry, Duration pollTimeout, Duration stopWait, int stopThreads) {

    /**
     * Enough for a node's gang of preempted parts, or a burst of evictions across nodes, to wait out
     * their grace periods side by side; a sink serving thousands of nodes queues the rest rather than
     * starting a thread for each.
     */
    public static final int DEFAULT_STOP_THREADS = 16;

    public SinkConfig {
        Objects.requireNonNull(bootstrapServers, "bootstrapServers");
        clientProperties = Map.copyOf(clientProperties);
        Objects.requireNonNull(registryUrl, "registryUrl");
        Objects.requireNonNull(topics, "topics");
        Objects.requireNonNull(groupId, "groupId");
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(stateDir, "stateDir");
        Objects.requireNonNull(retry, "retry");
        if (stopThreads < 1) {
            throw new IllegalArgumentException("stopThreads must be >= 1, got " + stopThreads);
        }
    }

    /** Defaults: all nodes, group gpupool-sink, catalog topic names, default retries. */
    public static SinkConfig defaults(final String bootstrapServers, final String registryUrl, final Path stateDir) {
        return new SinkConfig(bootstrapServers, Map.of(), registryUrl, TopicCatalog.defaults(), "gpupool-sink",
                Optional.empty(), true, stateDir, RetryPolicy.defaults(), Duration.ofMillis(200), Duration.ofSeconds(60),
                DEFAULT_STOP_THREADS);
    }

    /** A node-local agent: only this node's commands, in its own consumer group. */
    public SinkConfig forNode(final String nodeId) {
        return new SinkConfig(bootstrapServers, clientProperties, registryUrl, topics, groupId + "-" + nodeId,
                Optional.of(nodeId), ownPartitionOnly, stateDir, retry, pollTimeout, stopWait, stopThreads);
    }

    public SinkConfig withGroupId(final String id) {
        return new SinkConfig(bootstrapServers, clientProperties, registryUrl, topics, id, node, ownPartitionOnly,
                stateDir, retry, pollTimeout, stopWait, stopThreads);
    }

    public SinkConfig withTopics(final TopicCatalog catalog) {
        return new SinkConfig(bootstrapServers, clientProperties, registryUrl, catalog, groupId, node, ownPartitionOnly,
                stateDir, retry, pollTimeout, stopWait, stopThreads);
    }

    public SinkConfig withRetry(final RetryPolicy policy) {
        return new SinkConfig(bootstrapServers, clientProperties, registryUrl, topics, groupId, node, ownPartitionOnly,
                stateDir, policy, pollTimeout, stopWait, stopThreads);
    }

    public SinkConfig withClientProperties(final Map<String, Object> properties) {
        return new SinkConfig(bootstrapServers, properties, registryUrl, topics, groupId, node, ownPartitionOnly,
                stateDir, retry, pollTimeout, stopWait, stopThreads);
    }

    public SinkConfig withOwnPartitionOnly(final boolean only) {
        return new SinkConfig(bootstrapServers, clientProperties, registryUrl, topics, groupId, node, only,
                stateDir, retry, pollTimeout, stopWait, stopThreads);
    }

    public SinkConfig withStopThreads(final int threads) {
        return new SinkConfig(bootstrapServers, clientProperties, registryUrl, topics, groupId, node, ownPartitionOnly,
                stateDir, retry, pollTimeout, stopWait, threads);
    }

    public String commandsTopic() {
        return topics.name(Topic.NODE_COMMANDS);
    }

    public String eventsTopic() {
        return topics.name(Topic.JOB_EVENTS);
    }

    public String dlqTopic() {
        return topics.name(Topic.DLQ);
    }
}
