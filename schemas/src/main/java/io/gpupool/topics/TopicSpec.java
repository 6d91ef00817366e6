package io.gpupool.topics;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * How one topic is created: its physical name, partitions, replication and topic configs
 * (cleanup policy, retention). Configs are kept sorted so that printing and comparing them is stable.
 */
public final class TopicSpec {
    /** Replication factor -1 lets the broker apply its default.replication.factor. */
    public static final short BROKER_DEFAULT_REPLICATION = -1;

    private final Topic topic;
    private final String name;
    private final int partitions;
    private final short replicationFactor;
    private final Map<String, String> configs;

    public TopicSpec(final Topic topic, final String name, final int partitions,
                     final short replicationFactor, final Map<String, String> configs) {
        this.topic = Objects.requireNonNull(topic, "topic");
        this.name = requireValidName(name);
        if (partitions < 1) {
            throw new IllegalArgumentException("topic " + name + ": partitions must be >= 1, was " + partitions);
        }
        if (replicationFactor < 1 && replicationFactor != BROKER_DEFAULT_REPLICATION) {
            throw new IllegalArgumentException("topic " + name
                    + ": replication factor must be >= 1 (or -1 for the broker default), was " + replicationFactor);
        }
        this.partitions = partitions;
        this.replicationFactor = replicationFactor;
        this.configs = Collections.unmodifiableMap(new TreeMap<>(configs));
    }

    public Topic topic() {
        return topic;
    }

    public String name() {
        return name;
    }

    public int partitions() {
        return partitions;
    }

    public short replicationFactor() {
        return replicationFactor;
    }

    /** Topic-level configs, sorted by key. */
    public Map<String, String> configs() {
        return configs;
    }

    public String cleanupPolicy() {
        return configs.getOrDefault("cleanup.policy", "delete");
    }

    public TopicSpec withName(final String newName) {
        return new TopicSpec(topic, newName, partitions, replicationFactor, configs);
    }

    public TopicSpec withPartitions(final int newPartitions) {
        return new TopicSpec(topic, name, newPartitions, replicationFactor, configs);
    }

    public TopicSpec withReplicationFactor(final short newReplicationFactor) {
        return new TopicSpec(topic, name, partitions, newReplicationFactor, configs);
    }

    public TopicSpec withConfig(final String key, final String value) {
        final Map<String, String> copy = new TreeMap<>(configs);
        copy.put(key, value);
        return new TopicSpec(topic, name, partitions, replicationFactor, copy);
    }

    /** The admin-client request that creates this topic. */
    public NewTopic newTopic() {
        final Optional<Short> rf = replicationFactor == BROKER_DEFAULT_REPLICATION
                ? Optional.empty() : Optional.of(replicationFactor);
        return new NewTopic(name, Optional.of(partitions), rf).configs(configs);
    }

    // Kafka's own rule (Topic.validate): 1-249 chars of [a-zA-Z0-9._-].
    private static String requireValidName(final String name) {
        Objects.requireNonNull(name, "topic name");
        if (name.isEmpty() || name.length() > 249 || !name.matches("[a-zA-Z0-9._-]+")
                || name.equals(".") || name.equals("..")) {
            throw new IllegalArgumentException("invalid topic name '" + name
                    + "': use 1-249 characters of letters, digits, '.', '_' and '-'");
        }
        return name;
    }

    @Override
    public boolean equals(final Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof TopicSpec)) {
            return false;
        }
        final TopicSpec that = (TopicSpec) o;
        return topic == that.topic && partitions == that.partitions && replicationFactor == that.replicationFactor
                && name.equals(that.name) && configs.equals(that.configs);
    }

    @Override
    public int hashCode() {
        return Objects.hash(topic, name, partitions, replicationFactor, configs);
    }

    @Override
    public String toString() {
        return name + " (" + topic.id() + ", partitions=" + partitions + ", replication="
                + (replicationFactor == BROKER_DEFAULT_REPLICATION ? "broker default" : replicationFactor)
                + ", " + configs + ")";
    }
}
