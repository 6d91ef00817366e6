package io.gpupool.topics;

import java.util.Locale;

/**
 * The logical topics of gpupool (DESIGN.md, "Topics"). The physical name of each is resolved
 * through a {@link TopicCatalog}, so a deployment can rename them without touching code.
 */
public enum Topic {
    INVENTORY("inventory", "gpupool.inventory", "nodeId", "NodeInventory"),
    TELEMETRY_GPU("telemetry.gpu", "gpupool.telemetry.gpu", "nodeId", "GpuSamples"),
    TELEMETRY_LINK("telemetry.link", "gpupool.telemetry.link", "nodeId", "LinkSamples"),
    JOBS("jobs", "gpupool.jobs", "jobId", "JobCommand"),
    JOB_EVENTS("job-events", "gpupool.job-events", "jobId", "JobEvent"),
    JOURNAL("journal", "gpupool.journal", "poolId", "JournalEntry"),
    DECISIONS("decisions", "gpupool.decisions", "jobId", "PlacementDecision"),
    NODE_COMMANDS("node-commands", "gpupool.node-commands", "nodeId", "NodeCommand"),
    DLQ("dlq", "gpupool.dlq", "original key", "original bytes + error headers");

    private final String id;
    private final String defaultName;
    private final String key;
    private final String value;

    Topic(final String id, final String defaultName, final String key, final String value) {
        this.id = id;
        this.defaultName = defaultName;
        this.key = key;
        this.value = value;
    }

    /** Short id used in configuration keys, e.g. {@code gpupool.topic.job-events.name}. */
    public String id() {
        return id;
    }

    public String defaultName() {
        return defaultName;
    }

    /** What the record key is, in words. */
    public String key() {
        return key;
    }

    /** What the record value is (the Avro record name, or a description for the DLQ). */
    public String value() {
        return value;
    }

    /** Accepts the id ({@code job-events}), the enum name ({@code JOB_EVENTS}) or the default name. */
    public static Topic parse(final String text) {
        final String t = text.trim();
        for (final Topic topic : values()) {
            if (topic.id.equalsIgnoreCase(t) || topic.defaultName.equalsIgnoreCase(t)
                    || topic.name().equals(t.toUpperCase(Locale.ROOT).replace('-', '_').replace('.', '_'))) {
                return topic;
            }
        }
        throw new IllegalArgumentException("unknown topic '" + text + "'; known: " + knownIds());
    }

    static String knownIds() {
        final StringBuilder sb = new StringBuilder();
        for (final Topic topic : values()) {
            if (sb.length() > 0) {
                sb.append(", ");
            }
            sb.append(topic.id);
        }
        return sb.toString();
    }
}
