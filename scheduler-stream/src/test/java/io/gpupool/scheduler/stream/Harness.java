package io.gpupool.scheduler.stream;

import io.gpupool.avro.GpuSamples;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobEvent;
import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.LinkSamples;
import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.NodeInventory;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.registry.InMemorySchemaRegistry;
import io.gpupool.scheduler.core.EngineConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;

/**
 * Both stages under a TopologyTestDriver, on the serdes' in-memory registry (mock://), with typed
 * input topics and readers of the outputs.
 */
final class Harness implements AutoCloseable {
    private static final AtomicInteger RUNS = new AtomicInteger();

    final TopicNames topics = TopicNames.defaults();
    final String registryName = "harness-" + RUNS.incrementAndGet();
    final Codecs codecs = new Codecs(InMemorySchemaRegistry.named(registryName), true);
    final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    final SchedulerMetrics metrics = new SchedulerMetrics(meters);
    final PoolEngines engines = new PoolEngines();
    final TopologyTestDriver driver;
    final TestInputTopic<String, NodeInventory> inventory;
    final TestInputTopic<String, GpuSamples> gpu;
    final TestInputTopic<String, LinkSamples> link;
    final TestInputTopic<String, JobCommand> jobs;
    final TestInputTopic<String, JobEvent> events;
    final TestInputTopic<byte[], byte[]> rawJobs;
    final TestInputTopic<byte[], byte[]> rawGpu;
    final TestOutputTopic<String, JournalEntry> journal;
    final TestOutputTopic<String, PlacementDecision> decisions;
    final TestOutputTopic<String, NodeCommand> commands;
    final TestOutputTopic<byte[], byte[]> dlq;
    final Path stateDir;

    Harness(final int snapshotEvery, final long tickIntervalMs) throws Exception {
        stateDir = Files.createTempDirectory("gpupool-ttd-");
        final Properties p = StreamsSettings.local("ttd-" + registryName, "unused:9092", stateDir.toString());
        driver = new TopologyTestDriver(SchedulerTopology.build(topics, codecs, metrics, engines,
                pool -> EngineConfig.fromSettings(Map.of("pool", pool)), snapshotEvery, tickIntervalMs,
                TelemetryRules.defaults()), p, Instant.ofEpochMilli(0));
        inventory = driver.createInputTopic(topics.inventory(), new StringSerializer(), ser());
        gpu = driver.createInputTopic(topics.telemetryGpu(), new StringSerializer(), ser());
        link = driver.createInputTopic(topics.telemetryLink(), new StringSerializer(), ser());
        jobs = driver.createInputTopic(topics.jobs(), new StringSerializer(), ser());
        events = driver.createInputTopic(topics.jobEvents(), new StringSerializer(), ser());
        rawJobs = driver.createInputTopic(topics.jobs(), new ByteArraySerializer(), new ByteArraySerializer());
        rawGpu = driver.createInputTopic(topics.telemetryGpu(), new ByteArraySerializer(), new ByteArraySerializer());
        journal = driver.createOutputTopic(topics.journal(), new StringDeserializer(), codecs.deserializer(JournalEntry.class));
        decisions = driver.createOutputTopic(topics.decisions(), new StringDeserializer(),
                codecs.deserializer(PlacementDecision.class));
        commands = driver.createOutputTopic(topics.nodeCommands(), new StringDeserializer(),
                codecs.deserializer(NodeCommand.class));
        dlq = driver.createOutputTopic(topics.dlq(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private <T extends SpecificRecord> Serializer<T> ser() {
        return codecs.serializer();
    }

    /** A sink's event about the placement the job holds now in any pool (as a sink of that placement writes it). */
    JobEvent event(final String jobId, final io.gpupool.avro.JobEventType type, final long at) {
        String placement = "";
        for (final PoolEngines.Handle p : engines.all()) {
            final String mine = p.read(e -> e.placementOf(jobId));
            placement = mine.isEmpty() ? placement : mine;
        }
        return Fixtures.event(jobId, type, at, placement);
    }

    List<PlacementDecision> decisions() {
        return decisions.readValuesToList();
    }

    List<TestRecord<String, JournalEntry>> journal() {
        return journal.readRecordsToList();
    }

    double counter(final String name, final String... tags) {
        final io.micrometer.core.instrument.Counter c = meters.find(name).tags(tags).counter();
        return c == null ? 0 : c.count();
    }

    @Override
    public void close() throws Exception {
        driver.close();
        InMemorySchemaRegistry.drop(registryName);
    }
}
