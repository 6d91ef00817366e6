package io.gpupool.bench.pipeline;

import io.gpupool.avro.JobCommand;
import io.gpupool.bench.BenchTopics;
import io.gpupool.scheduler.journal.Codecs;
import io.gpupool.scheduler.stream.CommitCadence;
import io.gpupool.scheduler.stream.JournalBacklog;
import io.gpupool.scheduler.stream.ProducerCommitTimes;
import io.gpupool.scheduler.stream.StreamsSettings;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;

/**
 * The broker's ceiling for a Streams app: one with the scheduler's exactly-once configuration that copies a
 * backlog of job records from one topic to another, timed from its first output record to its last, over
 * the whole backlog (a run that does not copy all of it fails rather than print a partial window).
 */
final class PassThrough {
    /** As many partitions as the scheduler's jobs topic has by default. */
    private static final int PARTITIONS = 3;

    private PassThrough() {
    }

    static void measure(final PipelineBenchOptions o, final String prefix, final Codecs codecs,
                        final Map<String, String> figures, final PrintStream progress) throws Exception {
        final String in = prefix + ".pt-in";
        final String out = prefix + ".pt-out";
        BenchTopics.createAndAwaitLeaders(o.bootstrapServers(), o.clientOverrides(), List.of(in, out), PARTITIONS);
        progress.printf("bench: pass-through ceiling on a backlog of %d job records%n", o.passthroughRecords());
        final long backlog = produceBacklog(o, in, codecs);
        // the codec the scheduler writes with on topics gpupool creates (a --command-config codec wins in both)
        final Properties cfg = StreamsSettings.merge(StreamsSettings.merge(StreamsSettings.local(prefix + "-passthrough",
                o.bootstrapServers(), Files.createDirectories(o.stateDir().resolve(prefix + "-passthrough")).toString()),
                StreamsSettings.compression(StreamsSettings.FAST_COMPRESSION)), o.clientOverrides());
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(PipelineBench.consumerConfig(o.bootstrapServers(),
                o.clientOverrides(), prefix + "-pt-reader"), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.subscribe(List.of(out));
            final KafkaStreams pt = start(cfg, in, out, backlog);
            try {
                final WholeBacklog timing = new WholeBacklog("pass-through", backlog, progress);
                while (!timing.done()) {
                    timing.add(c.poll(Duration.ofMillis(50)).count());
                }
                figures.put("passthrough_records_per_s", WholeBacklog.format(timing.perSecond()));
                figures.put("passthrough_records", Long.toString(backlog));
            } finally {
                // its figure is taken: a close that hangs (one took its whole 30 s in a 2026-12-01 run) must not hold
                // up the run; its topics and transactions go with the bench's topics. Its threads leave the group:
                // a thread still in the start's follow-up rebalance otherwise waited for the other, already
                // closed, thread's member (5 s and more, in most runs of 2026-12-03)
                if (!pt.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                        .withTimeout(Duration.ofSeconds(5)))) {
                    progress.println("bench: the pass-through app did not close within 5 s; going on");
                }
            }
        }
    }

    /** The backlog, every send checked: the number written is what the reader waits for. */
    private static long produceBacklog(final PipelineBenchOptions o, final String in, final Codecs codecs) {
        final Serializer<JobCommand> ser = codecs.serializer();
        final CheckedSends sends = new CheckedSends();
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(PipelineBench.producerConfig(o.bootstrapServers(),
                o.clientOverrides()), new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < o.passthroughRecords(); i++) {
                final String id = PipelineBench.jobId(i);
                p.send(new ProducerRecord<>(in, id.getBytes(StandardCharsets.UTF_8),
                        ser.serialize(in, BenchFabric.submit(PipelineBench.POOL, id, 1))), sends);
            }
            return sends.flushAndCount(p);
        }
    }

    private static KafkaStreams start(final Properties config, final String from, final String to, final long backlog) {
        final ProducerCommitTimes commitTimes = new ProducerCommitTimes();
        final AtomicLong processed = new AtomicLong();
        final StreamsBuilder b = new StreamsBuilder();
        // the scheduler's commit cadence too: the same transactions per record as the scheduler at any load, and
        // no early commits while more of the backlog waits than the scheduler's placer counts as behind
        b.stream(from, Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()))
                .processValues(() -> new FixedKeyProcessor<byte[], byte[], byte[]>() {
                    private final CommitCadence cadence = new CommitCadence(commitTimes,
                            () -> backlog - processed.get() > JournalBacklog.BEHIND_ENTRIES);
                    private FixedKeyProcessorContext<byte[], byte[]> context;

                    @Override
                    public void init(final FixedKeyProcessorContext<byte[], byte[]> ctx) {
                        context = ctx;
                        cadence.init(ctx);
                    }

                    @Override
                    public void process(final FixedKeyRecord<byte[], byte[]> record) {
                        cadence.processed();
                        processed.incrementAndGet();
                        context.forward(record);
                    }
                })
                .to(to, Produced.with(Serdes.ByteArray(), Serdes.ByteArray()));
        final KafkaStreams s = new KafkaStreams(b.build(), config);
        commitTimes.readFrom(s::metrics);
        s.start();
        return s;
    }
}
