package io.gpupool.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpupool.cli.config.ClusterOptions;
import io.gpupool.cli.up.SchedulerService;
import io.gpupool.cli.up.SecureService;
import io.gpupool.cli.up.ServiceGroup;
import io.gpupool.cli.up.StackService;
import io.gpupool.cli.up.TopicsService;
import io.gpupool.cli.up.UpContext;
import io.gpupool.localstack.LocalStackSettings;
import io.gpupool.localstack.broker.BrokerSettings;
import io.gpupool.localstack.secure.StackPrincipal;
import io.gpupool.localstack.secure.StackSecurity;
import io.gpupool.registry.CompatibilityLevel;
import io.gpupool.registry.RegistryAuthException;
import io.gpupool.registry.RegistryClientConfig;
import io.gpupool.registry.SchemaRegistryClient;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gpupool up --secure}, as a user and an attacker meet it: the secured broker (SASL/SCRAM over TLS,
 * ACLs per principal), the registry over HTTPS with roles, the scheduler running as its own principal.
 * The submitter's principal submits with `gpupool submit --command-config` and the job is decided; a
 * principal that is not the sink's cannot write job events (the forged COMPLETED of issue 19 is refused
 * at the broker), one that is not the submitter's cannot write jobs; the read-only registry user cannot
 * change a subject's compatibility.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SecureStackTest {
    private static final String APP = "gpupool-scheduler-secure-test";

    @TempDir
    static Path dir;

    private Path dataDir;
    private StackSecurity security;
    private ServiceGroup group;
    private UpContext context;

    @BeforeAll
    void startTheSecuredStack() throws Exception {
        dataDir = dir.resolve("stack");
        security = StackSecurity.ensure(dataDir);
        context = new UpContext(new LocalStackSettings(BrokerSettings.defaults(dataDir).withSecurity(security), 0), Map.of(),
                new PrintWriter(new StringWriter(), true));
        group = new ServiceGroup(List.of(new StackService(), new TopicsService(), new SecureService(APP), new SchedulerService(APP)));
        group.start(context);
    }

    @AfterAll
    void stop() throws Exception {
        if (group != null) {
            group.close();
        }
    }

    private Path clientFile(final StackPrincipal principal) {
        final Path file = security.clientFile(principal);
        assertThat(file).isRegularFile();
        return file;
    }

    @Test
    void theSubmittersPrincipalSubmitsAndTheJobIsDecided() throws Exception {
        final CliRun submit = CliRun.of("submit", "--data-dir", dataDir.toString(),
                "--command-config", clientFile(StackPrincipal.SUBMITTER).toString(),
                "--job-id", "secure-j1", "--tenant", "team-a", "--gpus", "1", "--wait", "--timeout", "120s");
        assertThat(submit.exitCode()).as(submit.out() + submit.err()).isZero();
        // no node has reported yet: the decision is that the job waits
        assertThat(submit.out()).contains("secure-j1").contains("decision=QUEUED");
    }

    @Test
    void aCommandWithoutAPrincipalIsToldWhichFileToPass() {
        final CliRun submit = CliRun.of("submit", "--data-dir", dataDir.toString(), "--tenant", "team-a", "--gpus", "1");
        assertThat(submit.exitCode()).isNotZero();
        assertThat(submit.err()).contains("is secured").contains("--command-config")
                .contains(dataDir.resolve("secure").toString());
    }

    @Test
    void onlyTheSinksPrincipalWritesJobEventsAndOnlyTheSubmittersWritesJobs() throws Exception {
        final byte[] forged = "COMPLETED".getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> send(StackPrincipal.SUBMITTER, "gpupool.job-events", forged))
                .hasCauseInstanceOf(TopicAuthorizationException.class);
        assertThatThrownBy(() -> send(StackPrincipal.COLLECTOR, "gpupool.job-events", forged))
                .hasCauseInstanceOf(TopicAuthorizationException.class);
        // the auditor may write nowhere: its producer is refused even its producer id (IDEMPOTENT_WRITE)
        assertThatThrownBy(() -> send(StackPrincipal.AUDITOR, "gpupool.job-events", forged))
                .hasCauseInstanceOf(AuthorizationException.class);
        assertThatThrownBy(() -> send(StackPrincipal.SINK, "gpupool.jobs", forged))
                .hasCauseInstanceOf(TopicAuthorizationException.class);
        assertThatThrownBy(() -> send(StackPrincipal.AUDITOR, "gpupool.jobs", forged))
                .hasCauseInstanceOf(AuthorizationException.class);
        // the same write with the right principal goes through (the scheduler dead-letters the bytes)
        send(StackPrincipal.SINK, "gpupool.job-events", forged);
    }

    @Test
    void theReadOnlyRegistryUserCannotChangeCompatibility() {
        final SchemaRegistryClient auditor = registry(StackPrincipal.AUDITOR);
        assertThat(auditor.latest("gpupool.jobs-value").schema()).isNotNull();
        assertThatThrownBy(() -> auditor.setSubjectCompatibility("gpupool.jobs-value", CompatibilityLevel.NONE))
                .isInstanceOfSatisfying(RegistryAuthException.class, e -> assertThat(e.httpStatus()).isEqualTo(403));
        assertThatThrownBy(() -> registry(StackPrincipal.SUBMITTER).setGlobalCompatibility(CompatibilityLevel.NONE))
                .isInstanceOfSatisfying(RegistryAuthException.class, e -> assertThat(e.httpStatus()).isEqualTo(403));
        assertThat(registry(StackPrincipal.ADMIN).setSubjectCompatibility("gpupool.jobs-value", CompatibilityLevel.BACKWARD))
                .isEqualTo(CompatibilityLevel.BACKWARD);
    }

    private void send(final StackPrincipal principal, final String topic, final byte[] value) throws Exception {
        final Properties p = ClusterOptions.commandConfig(clientFile(principal));
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, context.bootstrapServers());
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 60_000);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(topic, "secure-j1".getBytes(StandardCharsets.UTF_8), value)).get(60, TimeUnit.SECONDS);
        }
    }

    private SchemaRegistryClient registry(final StackPrincipal principal) {
        final Map<String, Object> config = new HashMap<>();
        ClusterOptions.commandConfig(clientFile(principal)).forEach((k, v) -> config.put(k.toString(), v));
        config.put(RegistryClientConfig.URL, context.registryUrl().orElseThrow());
        return new SchemaRegistryClient(RegistryClientConfig.fromMap(config));
    }
}
