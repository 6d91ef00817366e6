package io.gpupool.sink;

import io.gpupool.sink.apply.Applier;
import io.gpupool.sink.apply.CommandTemplate;
import io.gpupool.sink.apply.ExecApplier;
import io.gpupool.sink.apply.JobPart;
import io.gpupool.sink.apply.Outcome;
import io.gpupool.sink.apply.PartObserver;
import io.gpupool.topics.TopicCatalog;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * A sink in a JVM of its own, for the crash test: exec applier with real processes, slowed down
 * after each start so that the parent can SIGKILL it with applied but uncommitted commands.
 * Args: bootstrap registry commandsTopic eventsTopic dlqTopic groupId stateDir delayMillis.
 */
public final class SinkChildMain {

    private SinkChildMain() {
    }

    public static void main(final String[] args) throws Exception {
        final TopicCatalog catalog = TopicCatalog.defaults().withOverrides(Map.of("gpupool.topic.node-commands.name", args[2],
                "gpupool.topic.job-events.name", args[3], "gpupool.topic.dlq.name", args[4]));
        final SinkConfig config = SinkConfig.defaults(args[0], args[1], Path.of(args[6])).withTopics(catalog)
                .withGroupId(args[5])
                // The killed JVM's member must expire quickly for the restarted one to get the partition.
                .withClientProperties(Map.of("session.timeout.ms", 6000, "heartbeat.interval.ms", 1000));
        final long delay = Long.parseLong(args[7]);
        final ExecApplier exec = new ExecApplier(CommandTemplate.jobCommand(), Duration.ofSeconds(2),
                Path.of(args[6], "logs"));
        final SinkRunner sink = SinkRunner.create(config, new Slowed(exec, delay)).start();
        System.out.println("READY");
        System.out.flush();
        sink.awaitStopped(); // this child JVM lives until the test kills it, or until its sink fails
        sink.failure().ifPresent(Throwable::printStackTrace);
        System.exit(1);
    }

    /** The real exec applier, with a pause after each start. */
    private record Slowed(ExecApplier exec, long delayMillis) implements Applier {
        @Override
        public String name() {
            return exec.name();
        }

        @Override
        public void allocate(final JobPart part, final PartObserver observer) throws Exception {
            exec.allocate(part, observer);
            Thread.sleep(delayMillis); // the behaviour under test: a slow node, killed between start and commit
        }

        @Override
        public Optional<Outcome> stop(final JobPart part, final String reason) throws Exception {
            return exec.stop(part, reason);
        }

        @Override
        public void recover(final JobPart part, final long pid, final long startedAtMillis, final PartObserver observer) {
            exec.recover(part, pid, startedAtMillis, observer);
        }

        @Override
        public void close() {
            exec.close();
        }
    }
}
