package io.gpupool.schemas;

import io.gpupool.avro.GpuSamples;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobEvent;
import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.LinkSamples;
import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.NodeInventory;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.topics.Topic;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificRecord;

/**
 * The top-level record types: the values of the topics. Only these are registered in a Schema
 * Registry and kept under evolution control; the nested types travel inside them.
 */
public final class RecordTypes {
    private static final Map<Topic, Class<? extends SpecificRecord>> BY_TOPIC;

    static {
        final Map<Topic, Class<? extends SpecificRecord>> m = new EnumMap<>(Topic.class);
        m.put(Topic.INVENTORY, NodeInventory.class);
        m.put(Topic.TELEMETRY_GPU, GpuSamples.class);
        m.put(Topic.TELEMETRY_LINK, LinkSamples.class);
        m.put(Topic.JOBS, JobCommand.class);
        m.put(Topic.JOB_EVENTS, JobEvent.class);
        m.put(Topic.JOURNAL, JournalEntry.class);
        m.put(Topic.DECISIONS, PlacementDecision.class);
        m.put(Topic.NODE_COMMANDS, NodeCommand.class);
        BY_TOPIC = Collections.unmodifiableMap(m);
    }

    private RecordTypes() {
    }

    /** Value class of a topic; empty for the DLQ, whose values are the original bytes. */
    public static Optional<Class<? extends SpecificRecord>> valueClass(final Topic topic) {
        return Optional.ofNullable(BY_TOPIC.get(topic));
    }

    /** Current schema of every top-level record, by simple name, in topic order. */
    public static Map<String, Schema> currentSchemas() {
        final Map<String, Schema> out = new LinkedHashMap<>();
        out.put("NodeInventory", NodeInventory.getClassSchema());
        out.put("GpuSamples", GpuSamples.getClassSchema());
        out.put("LinkSamples", LinkSamples.getClassSchema());
        out.put("JobCommand", JobCommand.getClassSchema());
        out.put("JobEvent", JobEvent.getClassSchema());
        out.put("JournalEntry", JournalEntry.getClassSchema());
        out.put("PlacementDecision", PlacementDecision.getClassSchema());
        out.put("NodeCommand", NodeCommand.getClassSchema());
        return Collections.unmodifiableMap(out);
    }
}
