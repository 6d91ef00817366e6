package io.gpupool.scheduler.stream;

import io.gpupool.avro.GpuSamples;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobEvent;
import io.gpupool.avro.JobEventType;
import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.LinkSamples;
import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.NodeInventory;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.registry.InMemorySchemaRegistry;
import io.gpupool.scheduler.core.EngineConfig;
import io.gpupool.scheduler.journal.Codecs;
import io.gpupool.scheduler.journal.TopicNames;
import io.gpupool.topics.TenantJobTopics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Deserializer;
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
public final class Harness implements AutoCloseable {
    private static final AtomicInteger RUNS = new AtomicInteger();

    public final TopicNames topics = TopicNames.defaults();
    public final String registryName = "harness-" + RUNS.incrementAndGet();
    public final String applicationId = "ttd-" + registryName;
    public final Codecs codecs = new Codecs(InMemorySchemaRegistry.named(registryName), true);
    public final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    public final SchedulerMetrics metrics = new SchedulerMetrics(meters);
    public final PoolEngines engines = new PoolEngines();
    /** The placer's backlog as stage 1 sees it: a test sets it ({@link JournalBacklog#measured}); limit 1,000 entries. */
    public final JournalBacklog backlog = new JournalBacklog(1_000, System::currentTimeMillis);
    public final TopologyTestDriver driver;
    public final TestInputTopic<String, NodeInventory> inventory;
    public final TestInputTopic<String, GpuSamples> gpu;
    public final TestInputTopic<String, LinkSamples> link;
    public final TestInputTopic<String, JobCommand> jobs;
    public final TestInputTopic<String, JobEvent> events;
    public final TestInputTopic<byte[], byte[]> rawJobs;
    public final TestInputTopic<byte[], byte[]> rawGpu;
    /** The journal as written (raw bytes); read through {@link #journal()}, which keeps every record for the reader. */
    private final TestOutputTopic<String, byte[]> journal;
    private final List<TestRecord<String, byte[]>> journalLog = new ArrayList<>();
    private int journalRead;
    public final TestOutputTopic<String, PlacementDecision> decisions;
    public final TestOutputTopic<String, NodeCommand> commands;
    public final TestOutputTopic<byte[], byte[]> dlq;
    public final Path stateDir;

    public Harness(final int snapshotEvery, final long tickIntervalMs) throws Exception {
        this(snapshotEvery, tickIntervalMs, Map.of());
    }

    /** A harness whose engines take {@code settings} (engine setting keys, see EngineConfig.fromSettings). */
    public Harness(final int snapshotEvery, final long tickIntervalMs, final Map<String, String> settings) throws Exception {
        this(snapshotEvery, tickIntervalMs, settings, JobSources.sharedOnly(1));
    }

    /** A harness whose stage 1 reads job commands from {@code jobSources} (tenants' topics too, or not). */
    public Harness(final int snapshotEvery, final long tickIntervalMs, final Map<String, String> settings,
                   final JobSources jobSources) throws Exception {
        stateDir = Files.createTempDirectory("gpupool-ttd-");
        final Properties p = StreamsSettings.local(applicationId, "unused:9092", stateDir.toString());
        driver = new TopologyTestDriver(SchedulerTopology.build(applicationId, topics, codecs, metrics, engines,
                configs(settings), snapshotEvery, tickIntervalMs, TelemetryRules.defaults(),
                SchedulerTopology.DEFAULT_MAX_CLOCK_AHEAD_MS, jobSources, journalReader(), backlog), p, Instant.ofEpochMilli(0));
        inventory = driver.createInputTopic(topics.inventory(), new StringSerializer(), ser());
        gpu = driver.createInputTopic(topics.telemetryGpu(), new StringSerializer(), ser());
        link = driver.createInputTopic(topics.telemetryLink(), new StringSerializer(), ser());
        jobs = driver.createInputTopic(topics.jobs(), new StringSerializer(), ser());
        events = driver.createInputTopic(topics.jobEvents(), new StringSerializer(), ser());
        rawJobs = driver.createInputTopic(topics.jobs(), new ByteArraySerializer(), new ByteArraySerializer());
        rawGpu = driver.createInputTopic(topics.telemetryGpu(), new ByteArraySerializer(), new ByteArraySerializer());
        journal = driver.createOutputTopic(topics.journal(), new StringDeserializer(), new ByteArrayDeserializer());
        decisions = driver.createOutputTopic(topics.decisions(), new StringDeserializer(),
                codecs.deserializer(PlacementDecision.class));
        commands = driver.createOutputTopic(topics.nodeCommands(), new StringDeserializer(),
                codecs.deserializer(NodeCommand.class));
        dlq = driver.createOutputTopic(topics.dlq(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** Job commands as written to a tenant's job topic ({@code gpupool.jobs.<tenant>}). */
    public TestInputTopic<String, JobCommand> tenantJobs(final String tenant) {
        return driver.createInputTopic(TenantJobTopics.topic(topics.jobs(), tenant), new StringSerializer(), ser());
    }

    /** Per pool, the engine config of {@code settings} plus the pool's name. */
    public static Function<String, EngineConfig> configs(final Map<String, String> settings) {
        return pool -> {
            final Map<String, String> s = new TreeMap<>(settings);
            s.put("pool", pool);
            return EngineConfig.fromSettings(s);
        };
    }

    private <T extends SpecificRecord> Serializer<T> ser() {
        return codecs.serializer();
    }

    /** A sink's event about the placement the job holds now in any pool (as a sink of that placement writes it). */
    public JobEvent event(final String jobId, final JobEventType type, final long at) {
        String placement = "";
        for (final PoolEngines.Handle p : engines.all()) {
            final String mine = p.read(e -> e.placementOf(jobId));
            placement = mine.isEmpty() ? placement : mine;
        }
        return Fixtures.event(jobId, type, at, placement);
    }

    public List<PlacementDecision> decisions() {
        return decisions.readValuesToList();
    }

    /** The journal records written since the last call. */
    public List<TestRecord<String, JournalEntry>> journal() {
        journalLog.addAll(journal.readRecordsToList());
        final Deserializer<JournalEntry> decode = codecs.deserializer(JournalEntry.class);
        final List<TestRecord<String, JournalEntry>> out = new ArrayList<>();
        for (final TestRecord<String, byte[]> r : journalLog.subList(journalRead, journalLog.size())) {
            out.add(new TestRecord<>(r.key(), decode.deserialize(topics.journal(), r.headers(), r.value()), r.headers(),
                    r.getRecordTime()));
        }
        journalRead = journalLog.size();
        return out;
    }

    /**
     * The journal as a restarted placer would re-read it: the test driver gives its one partition offsets 0, 1, 2...
     * in the order the records were written, and has processed all of them (they are all "committed").
     */
    public JournalReader journalReader() {
        return (partition, from, each) -> {
            journalLog.addAll(journal.readRecordsToList());
            for (int offset = (int) from; offset < journalLog.size(); offset++) {
                each.record(offset, journalLog.get(offset).value());
            }
            return journalLog.size();
        };
    }

    /** Every pool's stored engine state, with the journal entries after its snapshot: what a restart restores. */
    public List<EngineStore.Stored> storedEngines() {
        final EngineStore store = new EngineStore(driver.getKeyValueStore(EngineStore.SNAPSHOTS),
                driver.getKeyValueStore(EngineStore.TAIL));
        return JournalTail.of(store.load(), 0, journalReader(), codecs.deserializer(JournalEntry.class)).pools();
    }

    /** One pool's, as {@link #storedEngines()}. */
    public EngineStore.Stored storedEngine(final String pool) {
        return storedEngines().stream().filter(s -> s.pool().equals(pool)).findFirst().orElseThrow();
    }

    public double counter(final String name, final String... tags) {
        final Counter c = meters.find(name).tags(tags).counter();
        return c == null ? 0 : c.count();
    }

    @Override
    public void close() throws Exception {
        driver.close();
        InMemorySchemaRegistry.drop(registryName);
    }
}
