package io.gpupool.bench.sink;

import io.gpupool.avro.ExecSpec;
import io.gpupool.avro.GpuAssignment;
import io.gpupool.avro.JobEvent;
import io.gpupool.avro.JobEventType;
import io.gpupool.avro.JournalPosition;
import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.NodeCommandType;
import io.gpupool.registry.RegistryClientConfig;
import io.gpupool.serde.SpecificAvroSerde;
import io.gpupool.sink.SinkConfig;
import io.gpupool.sink.SinkListener;
import io.gpupool.sink.SinkRunner;
import io.gpupool.sink.apply.Applier;
import io.gpupool.sink.apply.CommandTemplate;
import io.gpupool.sink.apply.ExecApplier;
import io.gpupool.sink.apply.SimulatedApplier;
import io.gpupool.sink.ledger.AppliedLedger;
import io.gpupool.topics.TopicCatalog;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.ValueAtPercentile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * How fast one sink applies commands on a real broker: produces N ALLOCATE commands over M nodes
 * to fresh topics, runs a sink with the simulated applier (jobs end at once), and prints
 * name=value lines once every job's COMPLETED event is out. Each command costs a ledger append
 * with fsync, four events and an offset commit per poll.
 *
 * <pre>java -cp ... io.gpupool.bench.sink.SinkBench BOOTSTRAP REGISTRY_URL STATE_DIR [COMMANDS] [NODES] [simulated|exec]</pre>
 * With {@code exec} each job is a real {@code /bin/true} process, so the figure is process launches.
 */
public final class SinkBench {

    private SinkBench() {
    }

    public static void main(final String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: SinkBench BOOTSTRAP REGISTRY_URL STATE_DIR [COMMANDS=20000] [NODES=64] [simulated|exec]");
            System.exit(2);
        }
        final int commands = args.length > 3 ? Integer.parseInt(args[3]) : 20_000;
        final int nodes = args.length > 4 ? Integer.parseInt(args[4]) : 64;
        final boolean exec = args.length > 5 && args[5].equals("exec");
        run(args[0], args[1], Path.of(args[2]), commands, nodes, exec).forEach((k, v) -> System.out.println(k + "=" + v));
    }

    /** Runs the benchmark and returns its figures, in print order. */
    public static Map<String, String> run(final String bootstrap, final String registryUrl, final Path stateDir,
                                          final int commands, final int nodes, final boolean exec) throws Exception {
        final String suffix = Long.toString(System.currentTimeMillis());
        final String commandTopic = "bench.node-commands." + suffix;
        final Properties admin = new Properties();
        admin.put("bootstrap.servers", bootstrap);
        try (Admin a = Admin.create(admin)) {
            a.createTopics(List.of(new NewTopic(commandTopic, 3, (short) 1),
                    new NewTopic("bench.job-events." + suffix, 3, (short) 1),
                    new NewTopic("bench.dlq." + suffix, 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        final TopicCatalog catalog = TopicCatalog.defaults().withOverrides(Map.of(
                "gpupool.topic.node-commands.name", commandTopic,
                "gpupool.topic.job-events.name", "bench.job-events." + suffix,
                "gpupool.topic.dlq.name", "bench.dlq." + suffix));
        produce(bootstrap, registryUrl, commandTopic, commands, nodes, exec);

        final CountDownLatch done = new CountDownLatch(commands);
        final AtomicLong events = new AtomicLong();
        final SinkConfig config = SinkConfig.defaults(bootstrap, registryUrl, stateDir.resolve("bench-" + suffix))
                .withTopics(catalog).withGroupId("bench-sink-" + suffix);
        final long t0 = System.nanoTime();
        final Map<String, String> out = new LinkedHashMap<>();
        final Applier applier = exec
                ? new ExecApplier(CommandTemplate.jobCommand(), Duration.ofSeconds(5), config.stateDir().resolve("logs"))
                : new SimulatedApplier(1, Duration.ZERO);
        try (SinkRunner sink = SinkRunner.create(config, applier)) {
            sink.addListener(new SinkListener() {
                @Override
                public void eventPublished(final JobEvent e) {
                    events.incrementAndGet();
                    if (e.getType() == JobEventType.COMPLETED) {
                        done.countDown();
                    }
                }
            }).start();
            if (!done.await(10, TimeUnit.MINUTES)) {
                throw new IllegalStateException("only " + (commands - done.getCount()) + " of " + commands + " completed");
            }
            final double seconds = (System.nanoTime() - t0) / 1e9;
            final Timer latency = sink.metrics().registry().find("gpupool.sink.apply.latency").timer();
            out.put("sink.applier", applier.name());
            out.put("sink.commands", Integer.toString(commands));
            out.put("sink.nodes", Integer.toString(nodes));
            out.put("sink.seconds", String.format("%.2f", seconds));
            out.put("sink.commands.per.second", String.format("%.0f", commands / seconds));
            out.put("sink.events.per.second", String.format("%.0f", events.get() / seconds));
            for (final ValueAtPercentile p : latency.takeSnapshot().percentileValues()) {
                out.put("sink.apply.latency.p" + Math.round(p.percentile() * 100) + ".ms",
                        String.format("%.3f", p.value(TimeUnit.MILLISECONDS)));
            }
            out.put("sink.ledger.bytes.per.command", Long.toString(
                    Files.size(config.stateDir().resolve(AppliedLedger.FILE_NAME)) / commands));
        }
        return out;
    }

    private static void produce(final String bootstrap, final String registryUrl, final String topic, final int commands,
                                final int nodes, final boolean exec) throws Exception {
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 10);
        try (KafkaProducer<String, NodeCommand> producer = new KafkaProducer<>(p, new StringSerializer(),
                SpecificAvroSerde.forValues(NodeCommand.class, Map.of(RegistryClientConfig.URL, registryUrl)).serializer())) {
            for (int i = 0; i < commands; i++) {
                final String node = "node-" + (i % nodes);
                final NodeCommand c = NodeCommand.newBuilder().setCommandId("bench-alloc-" + i).setDecisionId("bench-" + i)
                        .setType(NodeCommandType.ALLOCATE).setNodeId(node).setJobId("job-" + i).setPool("bench")
                        .setGpus(List.of(new GpuAssignment("GPU-" + node + "-" + (i % 8), i % 8, 1000)))
                        .setExec(exec ? ExecSpec.newBuilder().setCommand(List.of("/bin/true")).build() : null)
                        .setRuntimeEstimateMillis(0L).setCause(new JournalPosition(0, (long) i, Instant.now())).build();
                producer.send(new ProducerRecord<>(topic, node, c));
            }
            producer.flush();
        }
    }
}
