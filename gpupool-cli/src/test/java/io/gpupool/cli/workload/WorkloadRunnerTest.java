package io.gpupool.cli.workload;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobRequest;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** What the runner counts as submitted: only sends the broker acknowledged (a MockProducer plays the broker). */
class WorkloadRunnerTest {

    private static List<TimedJob> jobs(final int n) {
        final List<TimedJob> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new TimedJob(0, "j" + i, JobRequest.newBuilder().setName("train").setTenant("t").setPool("p")
                    .setGpusPerNode(1).build()));
        }
        return out;
    }

    /** No automatic acknowledgement: the test says which send succeeds and which fails. */
    private static MockProducer<String, JobCommand> broker() {
        return new MockProducer<>(false, null, new StringSerializer(), (topic, command) -> new byte[0]);
    }

    private static void await(final BooleanSupplier done) {
        Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5)).until(done::getAsBoolean);
    }

    @Test
    void aJobCountsAsSubmittedOnlyWhenAcknowledgedAndFailuresApartWithOneWarning() throws Exception {
        final MockProducer<String, JobCommand> broker = broker();
        final PrintStream stderr = System.err;
        final ByteArrayOutputStream log = new ByteArrayOutputStream();
        System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8)); // slf4j-simple writes to System.err
        try (WorkloadRunner runner = new WorkloadRunner(jobs(3).iterator(), 1.0,
                new JobCommandProducer(broker, "gpupool.jobs"), "test").start()) {
            await(() -> broker.history().size() == 3 && runner.finished());
            assertThat(runner.submitted()).as("sent, not yet acknowledged").isZero();
            assertThat(runner.sendFailed()).isZero();
            broker.completeNext();
            broker.errorNext(new TimeoutException("broker gone"));
            broker.errorNext(new TimeoutException("broker gone"));
            assertThat(runner.submitted()).isEqualTo(1);
            assertThat(runner.sendFailed()).isEqualTo(2);
        } finally {
            System.setErr(stderr);
        }
        final String logged = log.toString(StandardCharsets.UTF_8);
        assertThat(logged.lines().filter(l -> l.contains("WARN") && l.contains("could not submit")).toList())
                .as(logged).hasSize(1).allMatch(l -> l.contains("j1") && l.contains("jobs_send_failed"));
    }

    @Test
    void aSendRefusedAtOnceIsAFailedSendAndTheNextJobStillGoes() throws Exception {
        final MockProducer<String, JobCommand> broker = broker();
        broker.sendException = new SerializationException("cannot serialise");
        try (WorkloadRunner runner = new WorkloadRunner(jobs(4).iterator(), 1.0,
                new JobCommandProducer(broker, "gpupool.jobs"), "test").start()) {
            await(runner::finished);
            assertThat(runner.sendFailed()).as("every job was tried").isEqualTo(4);
            assertThat(runner.submitted()).isZero();
        }
    }
}
