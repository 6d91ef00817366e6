package io.gpupool.topics;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Every gpupool topic with its name, partitions, replication and configs (DESIGN.md, "Topics").
 * {@link #defaults()} is the table; {@link #withOverrides(Map)} applies configuration such as
 * <pre>
 *   gpupool.topics.partitions=6                 all topics
 *   gpupool.topics.replication=3                all topics
 *   gpupool.topic.journal.name=prod.gpupool.journal
 *   gpupool.topic.journal.partitions=12
 *   gpupool.topic.telemetry.gpu.replication=3
 *   gpupool.topic.telemetry.gpu.config.retention.ms=3600000
 * </pre>
 * Every module and command resolves topic names here, so a rename is one setting.
 */
public final class TopicCatalog {
    public static final String PREFIX = "gpupool.topic.";
    public static final String ALL_PARTITIONS = "gpupool.topics.partitions";
    public static final String ALL_REPLICATION = "gpupool.topics.replication";

    static final long HOUR_MS = 3_600_000L;
    static final long DAY_MS = 24 * HOUR_MS;
    /** Telemetry is only needed until the journal has the facts derived from it. */
    static final long TELEMETRY_RETENTION_MS = 6 * HOUR_MS;
    /** Jobs, events and commands: long enough to reconstruct a month of history. */
    static final long LONG_RETENTION_MS = 30 * DAY_MS;
    static final int DEFAULT_PARTITIONS = 3;
    /**
     * The topics gpupool writes that clients in any language read (sinks, dashboards, tools). They are created
     * with {@code compression.type=gzip}: the broker stores them as gzip whatever codec the producer used, so
     * kafkajs, which reads no other codec, reads them while the scheduler writes a cheaper one.
     */
    public static final Set<Topic> READ_BY_ANY_CLIENT = Collections.unmodifiableSet(
            EnumSet.of(Topic.DECISIONS, Topic.NODE_COMMANDS, Topic.DLQ));

    private final Map<Topic, TopicSpec> specs;

    private TopicCatalog(final Map<Topic, TopicSpec> specs) {
        this.specs = Collections.unmodifiableMap(new EnumMap<>(specs));
    }

    /** The topics as DESIGN.md's table defines them, replication left to the broker default. */
    public static TopicCatalog defaults() {
        final Map<Topic, TopicSpec> specs = new EnumMap<>(Topic.class);
        for (final Topic topic : Topic.values()) {
            specs.put(topic, new TopicSpec(topic, topic.defaultName(), DEFAULT_PARTITIONS,
                    TopicSpec.BROKER_DEFAULT_REPLICATION, defaultConfigs(topic)));
        }
        return new TopicCatalog(specs);
    }

    static Map<String, String> defaultConfigs(final Topic topic) {
        final Map<String, String> c = new TreeMap<>();
        switch (topic) {
            case INVENTORY:
                // Latest inventory per node is all that matters; tombstones remove a node.
                c.put("cleanup.policy", "compact");
                break;
            case TELEMETRY_GPU:
            case TELEMETRY_LINK:
                c.put("cleanup.policy", "delete");
                c.put("retention.ms", Long.toString(TELEMETRY_RETENTION_MS));
                break;
            case JOURNAL:
            case DECISIONS:
                // Kept for audit and replay: nothing may ever be deleted or compacted away.
                c.put("cleanup.policy", "delete");
                c.put("retention.ms", "-1");
                c.put("retention.bytes", "-1");
                break;
            case JOBS:
            case JOB_EVENTS:
            case NODE_COMMANDS:
            case DLQ:
                c.put("cleanup.policy", "delete");
                c.put("retention.ms", Long.toString(LONG_RETENTION_MS));
                break;
            default:
                throw new IllegalStateException("no default configs for " + topic);
        }
        if (READ_BY_ANY_CLIENT.contains(topic)) {
            c.put("compression.type", "gzip");
        }
        return c;
    }

    /**
     * Applies overrides; keys that do not start with {@code gpupool.topic} are ignored, so a whole
     * configuration map can be passed. An unknown topic id or setting is an error that names the fix.
     */
    public TopicCatalog withOverrides(final Map<String, String> settings) {
        final Map<Topic, TopicSpec> next = new EnumMap<>(specs);
        final Map<String, String> sorted = new TreeMap<>(settings);
        final String all = sorted.get(ALL_PARTITIONS);
        if (all != null) {
            final int n = parseInt(ALL_PARTITIONS, all);
            next.replaceAll((t, s) -> s.withPartitions(n));
        }
        final String allRf = sorted.get(ALL_REPLICATION);
        if (allRf != null) {
            final short rf = parseShort(ALL_REPLICATION, allRf);
            next.replaceAll((t, s) -> s.withReplicationFactor(rf));
        }
        for (final Map.Entry<String, String> e : sorted.entrySet()) {
            final String key = e.getKey();
            if (!key.startsWith(PREFIX)) {
                continue;
            }
            final String rest = key.substring(PREFIX.length());
            final Topic topic = topicOf(key, rest);
            final String setting = rest.substring(topic.id().length() + 1);
            final String value = e.getValue();
            final TopicSpec spec = next.get(topic);
            if (setting.equals("name")) {
                next.put(topic, spec.withName(value.trim()));
            } else if (setting.equals("partitions")) {
                next.put(topic, spec.withPartitions(parseInt(key, value)));
            } else if (setting.equals("replication")) {
                next.put(topic, spec.withReplicationFactor(parseShort(key, value)));
            } else if (setting.startsWith("config.") && setting.length() > "config.".length()) {
                next.put(topic, spec.withConfig(setting.substring("config.".length()), value.trim()));
            } else {
                throw new IllegalArgumentException("unknown topic setting '" + key + "': use " + PREFIX
                        + topic.id() + ".name, .partitions, .replication or .config.<kafka topic config>");
            }
        }
        return new TopicCatalog(next);
    }

    // Longest id first, so "telemetry.gpu.name" is not read as a topic "telemetry".
    private static Topic topicOf(final String key, final String rest) {
        Topic best = null;
        for (final Topic t : Topic.values()) {
            if (rest.startsWith(t.id() + ".") && (best == null || t.id().length() > best.id().length())) {
                best = t;
            }
        }
        if (best == null) {
            throw new IllegalArgumentException("unknown topic in '" + key + "': known topic ids are "
                    + Topic.knownIds());
        }
        return best;
    }

    private static int parseInt(final String key, final String value) {
        try {
            return Integer.parseInt(value.trim());
        } catch (final NumberFormatException e) {
            throw new IllegalArgumentException(key + "=" + value + " is not a whole number", e);
        }
    }

    private static short parseShort(final String key, final String value) {
        try {
            return Short.parseShort(value.trim());
        } catch (final NumberFormatException e) {
            throw new IllegalArgumentException(key + "=" + value + " is not a whole number", e);
        }
    }

    public TopicSpec spec(final Topic topic) {
        return specs.get(topic);
    }

    /** Physical name of a logical topic. */
    public String name(final Topic topic) {
        return specs.get(topic).name();
    }

    /** All specs in the table's order. */
    public List<TopicSpec> all() {
        return new ArrayList<>(specs.values());
    }
}
