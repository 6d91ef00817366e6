package io.gpupool.scheduler.audit;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobEvent;
import io.gpupool.avro.JobEventType;
import io.gpupool.avro.JobSubmit;
import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.NodeCommandType;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.core.EngineConfig;
import io.gpupool.scheduler.core.PoolEngine;
import io.gpupool.scheduler.journal.EngineSnapshot;
import io.gpupool.scheduler.journal.JobBookSection;
import io.gpupool.scheduler.journal.JobRecord;
import io.gpupool.scheduler.journal.JournalApplier;
import io.gpupool.scheduler.journal.JournalRecord;
import io.gpupool.scheduler.journal.SnapshotTopic;
import io.gpupool.scheduler.journal.SnapshotTopicRecords;
import io.gpupool.scheduler.stream.DecisionHistory;
import io.gpupool.scheduler.stream.EngineStore;
import io.gpupool.scheduler.stream.Fixtures;
import io.gpupool.scheduler.stream.Harness;
import io.gpupool.scheduler.stream.JournalReader;
import io.gpupool.scheduler.stream.PlacerProcessor;
import io.gpupool.scheduler.stream.PoolEngines;
import io.gpupool.scheduler.stream.SchedulerMetrics;
import io.gpupool.serde.WireFormat;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The placer's job book (which job ids were taken, the requests of live jobs) is part of what it
 * decides from. A job that finished before a snapshot and is submitted again after it is a duplicate
 * for the live placer, for an audit that starts from the published snapshot, and for a placer that
 * restarts from its stores.
 */
class PlacerJobBookTest {
    private static final Function<String, EngineConfig> CONFIGS = p -> EngineConfig.fromSettings(Map.of("pool", p));

    /** What the live run recorded. */
    private record Run(List<JournalEntry> journal, List<PlacementDecision> decisions, List<NodeCommand> commands,
                       List<EngineSnapshot> snapshots, Harness harness) {
    }

    /**
     * x is placed, runs and completes; y (placed before x completes) and z (queued until x completes)
     * are live across snapshots; then x is submitted again under a new command id (a duplicate) and
     * its first command arrives again (a retry, ignored); then y and z complete and w arrives.
     */
    private static Run run(final Harness h) {
        h.inventory.pipeInput("n0", Fixtures.node("p1", "n0", "leaf-0", 8), 1_000);
        h.inventory.pipeInput("n1", Fixtures.node("p1", "n1", "leaf-0", 8), 1_000);
        h.jobs.pipeInput("x", Fixtures.submit("x", Fixtures.request("p1", 1, 4).setName("first-x").build()), 2_000);
        h.events.pipeInput("x", h.event("x", JobEventType.STARTED, 2_100), 2_100);
        h.jobs.pipeInput("y", Fixtures.submit("y", Fixtures.request("p1", 1, 8).setName("why").setTenant("team-y").build()),
                2_200);
        h.jobs.pipeInput("z", Fixtures.submit("z", Fixtures.request("p1", 1, 8).setName("zed").build()), 2_300);
        h.events.pipeInput("x", h.event("x", JobEventType.COMPLETED, 3_000), 3_000);
        h.events.pipeInput("y", h.event("y", JobEventType.STARTED, 3_100), 3_100);
        h.events.pipeInput("z", h.event("z", JobEventType.STARTED, 3_200), 3_200);
        h.jobs.pipeInput("x", Fixtures.submit("x", "again-x", Fixtures.request("p1", 1, 2).setName("second-x").build()),
                4_000);
        h.jobs.pipeInput("x", Fixtures.submit("x", Fixtures.request("p1", 1, 4).setName("first-x").build()), 4_100);
        h.events.pipeInput("y", h.event("y", JobEventType.COMPLETED, 5_000), 5_000);
        h.events.pipeInput("z", h.event("z", JobEventType.COMPLETED, 5_100), 5_100);
        h.jobs.pipeInput("w", Fixtures.submit("w", Fixtures.request("p1", 2, 8).build()), 5_200);
        final List<JournalEntry> journal = h.journal().stream().map(TestRecord::value).toList();
        final List<PlacementDecision> decisions = h.decisions();
        final List<NodeCommand> commands = h.commands.readValuesToList();
        final SnapshotTopicRecords topic = new SnapshotTopicRecords();
        h.driver.createOutputTopic(SnapshotTopic.name(h.topics.journal()), new StringDeserializer(),
                new ByteArrayDeserializer()).readValuesToList().forEach(topic::add);
        final List<EngineSnapshot> snapshots = new ArrayList<>();
        topic.snapshots(null).values().forEach(snapshots::addAll);
        return new Run(journal, decisions, commands, snapshots, h);
    }

    private static long offsetOf(final List<JournalEntry> journal, final String commandId) {
        for (int i = 0; i < journal.size(); i++) {
            if (journal.get(i).getPayload() instanceof JobCommand c
                    && c.getCommandId().equals(commandId) && c.getCommand() instanceof JobSubmit) {
                return i;
            }
        }
        throw new AssertionError("no submit " + commandId);
    }

    private static long lastOffsetOf(final List<JournalEntry> journal, final String commandId) {
        long last = -1;
        for (int i = 0; i < journal.size(); i++) {
            if (journal.get(i).getPayload() instanceof JobCommand c && c.getCommandId().equals(commandId)) {
                last = i;
            }
        }
        return last;
    }

    @Test
    void anAuditFromEveryPublishedSnapshotMatchesTheLivePlacerWhenAFinishedJobIdIsSubmittedAgain() throws Exception {
        try (Harness h = new Harness(3, 600_000)) {
            final Run run = run(h);
            final long again = offsetOf(run.journal(), "again-x");
            // the live placer: the second submit of x is a duplicate, the retried first command is ignored
            assertThat(run.decisions()).filteredOn(d -> d.getCause().getOffset() == again).singleElement()
                    .satisfies(d -> {
                        assertThat(d.getOutcome()).isEqualTo(DecisionOutcome.REJECTED);
                        assertThat(d.getReasonCode()).isEqualTo("DUPLICATE_JOB");
                    });
            final long retry = lastOffsetOf(run.journal(), "submit-x");
            assertThat(retry).isGreaterThan(again);
            assertThat(run.decisions()).noneMatch(d -> d.getCause().getOffset() == retry);
            // a snapshot after x completed and before it came again; y's release names y (from the book)
            final long completed = run.journal().indexOf(run.journal().stream().filter(e -> e.getPayload()
                    instanceof JobEvent ev && ev.getJobId().equals("x")
                    && ev.getType() == JobEventType.COMPLETED).findFirst().orElseThrow());
            assertThat(run.snapshots()).anyMatch(s -> s.offset() >= completed && s.offset() < again);
            assertThat(run.snapshots()).allMatch(EngineSnapshot::hasJobBook);
            assertThat(run.commands()).anyMatch(c -> c.getType() == NodeCommandType.RELEASE
                    && c.getJobId().equals("y") && "why".equals(c.getJobName()) && "team-y".equals(c.getTenant()));

            final List<JournalRecord> journal = new ArrayList<>();
            for (int i = 0; i < run.journal().size(); i++) {
                journal.add(new JournalRecord(0, i, run.journal().get(i)));
            }
            for (final EngineSnapshot snap : run.snapshots()) {
                final AuditResult r = new Auditor(CONFIGS, Map.of("p1", snap), AuditRange.ALL).run(journal.iterator(),
                        RecordedDecisions.of(run.decisions()), RecordedCommands.of(run.commands()));
                assertThat(r.divergent()).as("from " + snap.describe() + ": "
                        + (r.firstDivergence() == null ? "" : r.firstDivergence().describe())).isZero();
                assertThat(r.commands().divergent()).as("from " + snap.describe() + ": "
                        + (r.commands().first() == null ? "" : r.commands().first().describe())).isZero();
                assertThat(r.passed()).isTrue();

                // and the published snapshot is the offline one, byte for byte, and the book read back from the
                // topic is the offline book at that offset: the same ids and positions, requests of live jobs
                final PoolEngine engine = new PoolEngine(CONFIGS.apply("p1"));
                final JournalApplier applier = JournalApplier.offline();
                for (final JournalRecord rec : journal.subList(0, (int) snap.offset() + 1)) {
                    applier.apply(engine, rec.entry(), rec.position());
                }
                assertThat(snap.engine()).isEqualTo(engine.snapshot());
                final Map<String, JobRecord> offline = book(applier.jobBookSnapshot(List.of(engine)));
                final Map<String, JobRecord> published = book(snap.jobBook());
                assertThat(published.keySet()).isEqualTo(offline.keySet());
                offline.forEach((id, o) -> {
                    final JobRecord p = published.get(id);
                    assertThat(List.of(p.partition(), p.offset(), p.commandId())).as(id)
                            .isEqualTo(List.of(o.partition(), o.offset(), o.commandId()));
                    if (o.request() != null) {
                        assertThat(p.request()).as(id).isEqualTo(o.request());
                    }
                });
            }
        }
    }

    @Test
    void aPlacerRestartedFromItsStoresStillKnowsTheFinishedJobId() throws Exception {
        try (Harness h = new Harness(3, 600_000)) {
            final Run run = run(h);
            final long again = offsetOf(run.journal(), "again-x");
            final Serializer<JournalEntry> ser = h.codecs.serializer();
            final List<byte[]> raw = run.journal().stream().map(e -> ser.serialize(h.topics.journal(), e)).toList();
            final List<StateStore> stores = new ArrayList<>();
            for (final String name : new String[] {EngineStore.SNAPSHOTS, EngineStore.TAIL, PlacerProcessor.JOB_STORE,
                    DecisionHistory.STORE}) {
                stores.add(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(name), Serdes.String(),
                        Serdes.ByteArray()).withLoggingDisabled().build());
            }
            final List<PlacementDecision> decisions = new ArrayList<>();
            final List<NodeCommand> commands = new ArrayList<>();
            BOOK_KEYS.clear();
            // before the restart: everything up to the entry before x's second submit
            final MockProcessorContext<Object, Object> first = context(stores, true);
            final PlacerProcessor before = placer(h, first, upTo(raw, 0));
            feed(before, first, raw, 0, (int) again, decisions, commands);
            before.close();
            // the restarted placer: same stores (as their changelogs restore them), new engines
            final KeyValueStore<String, byte[]> jobs = (KeyValueStore<String, byte[]>) stores.get(2);
            assertThat(jobs.get("x")).isNotNull();
            final MockProcessorContext<Object, Object> second = context(stores, false);
            final PlacerProcessor after = placer(h, second, upTo(raw, (int) again)); // resumes at x's second submit
            feed(after, second, raw, (int) again, raw.size(), decisions, commands);
            after.close();

            assertThat(decisions).hasSameSizeAs(run.decisions());
            for (int i = 0; i < decisions.size(); i++) {
                assertThat(bytes(decisions.get(i))).as("decision " + i + " " + decisions.get(i))
                        .isEqualTo(bytes(run.decisions().get(i)));
            }
            assertThat(commands).hasSameSizeAs(run.commands());
            for (int i = 0; i < commands.size(); i++) {
                assertThat(bytes(commands.get(i))).as("command " + i).isEqualTo(bytes(run.commands().get(i)));
            }
            assertThat(decisions).filteredOn(d -> d.getCause().getOffset() == again).singleElement()
                    .extracting(PlacementDecision::getReasonCode).isEqualTo("DUPLICATE_JOB");
            // one book record per job id across the restart: none again from the restored placer's re-applied tail
            assertThat(BOOK_KEYS).containsExactlyInAnyOrder("x#job#0", "y#job#0", "z#job#0", "w#job#0");
        }
    }

    @Test
    void aJobStoreFromBeforeBookRecordsIsPutOnTheTopicOnceByTheFirstRecord() throws Exception {
        try (Harness h = new Harness(3, 600_000)) {
            final List<StateStore> stores = new ArrayList<>();
            for (final String name : new String[] {EngineStore.SNAPSHOTS, EngineStore.TAIL, PlacerProcessor.JOB_STORE,
                    DecisionHistory.STORE}) {
                stores.add(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(name), Serdes.String(),
                        Serdes.ByteArray()).withLoggingDisabled().build());
            }
            final MockProcessorContext<Object, Object> ctx = context(stores, true);
            // what a scheduler of snapshot format 2 left: job ids in the store, no marker
            final KeyValueStore<String, byte[]> jobs = (KeyValueStore<String, byte[]>) stores.get(2);
            jobs.put("old-1", new JobRecord(0, 3, "c1", Fixtures.request("p1", 1, 1).build()).toBytes());
            jobs.put("old-2", new JobRecord(0, 4, "c2", null).toBytes());
            final PlacerProcessor p = placer(h, ctx, JournalReader.NONE);
            final Serializer<JournalEntry> ser = h.codecs.serializer();
            h.inventory.pipeInput("n0", Fixtures.node("p1", "n0", "leaf-0", 8), 1_000);
            final List<byte[]> raw = h.journal().stream().map(r -> ser.serialize(h.topics.journal(), r.value())).toList();
            BOOK_KEYS.clear();
            feed(p, ctx, raw, 0, raw.size(), new ArrayList<>(), new ArrayList<>());
            feed(p, ctx, raw, 0, raw.size(), new ArrayList<>(), new ArrayList<>());
            assertThat(BOOK_KEYS).containsExactly("old-1#job#0", "old-2#job#0");
            p.close();
            // a placer started again on the same store publishes nothing more
            final MockProcessorContext<Object, Object> again = context(stores, false);
            final PlacerProcessor q = placer(h, again, upTo(raw, raw.size()));
            BOOK_KEYS.clear();
            feed(q, again, raw, 0, raw.size(), new ArrayList<>(), new ArrayList<>());
            assertThat(BOOK_KEYS).isEmpty();
        }
    }

    private static Map<String, JobRecord> book(final byte[] section) {
        final Map<String, JobRecord> out = new TreeMap<>();
        JobBookSection.read(section, out::put);
        return out;
    }

    private static MockProcessorContext<Object, Object> context(final List<StateStore> stores, final boolean init) {
        final MockProcessorContext<Object, Object> ctx = new MockProcessorContext<>();
        for (final StateStore s : stores) {
            if (init) {
                s.init(ctx.getStateStoreContext(), s);
            }
            ctx.addStateStore(s);
        }
        return ctx;
    }

    private static PlacerProcessor placer(final Harness h, final MockProcessorContext<Object, Object> ctx,
                                          final JournalReader journal) {
        final PlacerProcessor p = new PlacerProcessor(CONFIGS, 3, new PoolEngines(),
                new SchedulerMetrics(new SimpleMeterRegistry()), h.codecs, "decisions", journal, h.backlog);
        p.init(ctx);
        return p;
    }

    /** The journal {@code raw} as a restarted placer re-reads it, processed up to offset {@code committed}. */
    private static JournalReader upTo(final List<byte[]> raw, final int committed) {
        return (partition, from, each) -> {
            for (int i = (int) from; i < committed; i++) {
                each.record(i, raw.get(i));
            }
            return committed;
        };
    }

    /** A decision as the placer forwards it: the decisions topic's value (wire-format header, then Avro binary). */
    private static PlacementDecision decision(final byte[] value) {
        try {
            return new SpecificDatumReader<>(PlacementDecision.class).read(null, DecoderFactory.get()
                    .binaryDecoder(value, WireFormat.HEADER_SIZE, value.length - WireFormat.HEADER_SIZE, null));
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void feed(final PlacerProcessor p, final MockProcessorContext<Object, Object> ctx,
                             final List<byte[]> raw, final int from, final int to, final List<PlacementDecision> decisions,
                             final List<NodeCommand> commands) {
        for (int i = from; i < to; i++) {
            ctx.resetForwards();
            ctx.setRecordMetadata("gpupool.journal", 0, i);
            p.process(new Record<>("p1".getBytes(StandardCharsets.UTF_8), raw.get(i), 1_000L + i));
            ctx.forwarded(PlacerProcessor.DECISIONS_SINK).forEach(f -> decisions.add(decision((byte[]) f.record().value())));
            ctx.forwarded(PlacerProcessor.COMMANDS_SINK).forEach(f -> commands.add((NodeCommand) f.record().value()));
            // the record that takes an id (version 1); a finished job's record is written again, with its expiry
            ctx.forwarded(PlacerProcessor.SNAPSHOTS_SINK).stream()
                    .filter(f -> ((String) f.record().key()).contains("#job#")
                            && ByteBuffer.wrap((byte[]) f.record().value()).getInt(4) == 1)
                    .map(f -> (String) f.record().key()).forEach(BOOK_KEYS::add);
        }
    }

    /** Keys of the job book records the placers of a test forwarded, in order. */
    private static final List<String> BOOK_KEYS = new ArrayList<>();

    @SuppressWarnings("unchecked")
    private static <T extends SpecificRecord> byte[] bytes(final T r) throws Exception {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final BinaryEncoder enc = EncoderFactory.get().binaryEncoder(out, null);
        new SpecificDatumWriter<T>((Class<T>) r.getClass()).write(r, enc);
        enc.flush();
        return out.toByteArray();
    }
}
