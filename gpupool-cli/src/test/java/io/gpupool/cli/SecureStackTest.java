package io.gpupool.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpupool.cli.config.ClusterOptions;
import io.gpupool.cli.config.ExitCodes;
import io.gpupool.cli.up.SchedulerService;
import io.gpupool.cli.up.SecureService;
import io.gpupool.cli.up.ServiceGroup;
import io.gpupool.cli.up.StackService;
import io.gpupool.cli.up.TopicsService;
import io.gpupool.cli.up.UpContext;
import io.gpupool.cli.workload.JobCommandProducer;
import io.gpupool.cli.workload.JobCommands;
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
import io.gpupool.topics.DeadLetters;
import java.time.Duration;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
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
    private static final List<String> TENANTS = List.of("team-a", "team-b");

    @TempDir
    static Path dir;

    private Path dataDir;
    private StackSecurity security;
    private ServiceGroup group;
    private UpContext context;

    @BeforeAll
    void startTheSecuredStack() throws Exception {
        dataDir = dir.resolve("stack");
        security = StackSecurity.ensure(dataDir, TENANTS);
        context = new UpContext(new LocalStackSettings(BrokerSettings.defaults(dataDir).withSecurity(security), 0), Map.of(),
                new PrintWriter(new StringWriter(), true));
        group = new ServiceGroup(List.of(new StackService(), new TopicsService(TENANTS), new SecureService(APP),
                new SchedulerService(APP)));
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
                "--job-id", "secure-j1", "--tenant", "team-a", "--gpus", "1", "--no-check", "--wait", "--timeout", "120s");
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
    void aTenantsCredentialsSubmitToItsOwnTopicAsThatTenant() throws Exception {
        // submit's own check reads the inventory with the tenant's credentials: no collector runs here, so no nodes
        final CliRun checked = CliRun.of("submit", "--data-dir", dataDir.toString(), "--command-config", tenantFile("team-a"),
                "--job-id", "ta-0", "--gpus", "1");
        assertThat(checked.exitCode()).as(checked.out() + checked.err()).isEqualTo(ExitCodes.REFUSED.code());
        assertThat(checked.err()).contains("has no nodes");
        final CliRun submit = CliRun.of("submit", "--data-dir", dataDir.toString(), "--command-config", tenantFile("team-a"),
                "--job-id", "ta-1", "--gpus", "1", "--no-check", "--wait", "--timeout", "120s");
        assertThat(submit.exitCode()).as(submit.out() + submit.err()).isZero();
        assertThat(submit.out()).contains("decision=QUEUED");
        final CliRun jobs = CliRun.of("jobs", "--data-dir", dataDir.toString(), "--state", "queued", "--tenant", "team-a",
                "-o", "json");
        assertThat(jobs.out()).contains("\"ta-1\"");
    }

    @Test
    void aTenantWritesNoOtherTenantsTopicNorTheSharedOneNorJobEvents() {
        final byte[] bytes = "x".getBytes(StandardCharsets.UTF_8);
        for (final String topic : List.of("gpupool.jobs.team-b", "gpupool.jobs", "gpupool.job-events")) {
            assertThatThrownBy(() -> send(tenantClient("team-a"), topic, bytes)).as(topic)
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
        }
    }

    @Test
    void aJobNamingAnotherTenantIsRejectedAndACancelOfAnothersJobIsRefusedAndTheAuditAgrees() throws Exception {
        // --no-check: past submit's own check, so that it is the scheduler that refuses
        final CliRun spoof = CliRun.of("submit", "--data-dir", dataDir.toString(), "--command-config", tenantFile("team-a"),
                "--job-id", "spoof-1", "--tenant", "team-b", "--gpus", "1", "--no-check", "--wait", "--timeout", "120s");
        assertThat(spoof.out() + spoof.err()).contains("WRONG_TENANT").contains("gpupool.jobs.team-a");
        assertThat(spoof.exitCode()).isNotZero();
        final CliRun refusedHere = CliRun.of("submit", "--data-dir", dataDir.toString(), "--command-config",
                tenantFile("team-a"), "--tenant", "team-b", "--gpus", "1");
        assertThat(refusedHere.exitCode()).isEqualTo(ExitCodes.USAGE.code());
        assertThat(refusedHere.err()).contains("tenant team-a's");

        final CliRun owned = CliRun.of("submit", "--data-dir", dataDir.toString(), "--command-config", tenantFile("team-b"),
                "--job-id", "tb-1", "--gpus", "1", "--no-check", "--wait", "--timeout", "120s");
        assertThat(owned.exitCode()).as(owned.out() + owned.err()).isZero();
        final CliRun cancel = CliRun.of("cancel", "tb-1", "--data-dir", dataDir.toString(), "--command-config",
                tenantFile("team-a"));
        assertThat(cancel.exitCode()).isEqualTo(ExitCodes.REFUSED.code());
        assertThat(cancel.err()).contains("job tb-1 is tenant team-b's; these credentials are tenant team-a's");
        // past the command's own check, as any client could: the scheduler refuses it
        final Properties teamA = tenantClient("team-a");
        teamA.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, context.bootstrapServers());
        try (JobCommandProducer producer = new JobCommandProducer(teamA, context.registryUrl().orElseThrow(),
                "gpupool.jobs.team-a")) {
            producer.sendAndWait(JobCommands.cancel("tb-1", "not mine", "team-a@test"));
        }
        assertThat(awaitDeadLetter("RefusedJobCommand", "job tb-1 is tenant team-b's")).isTrue();
        final CliRun still = CliRun.of("jobs", "--data-dir", dataDir.toString(), "--state", "queued", "-o", "json");
        assertThat(still.out()).contains("\"tb-1\"");

        final CliRun audit = CliRun.of("audit", "--data-dir", dataDir.toString(), "--command-config",
                clientFile(StackPrincipal.AUDITOR).toString(), "--application-id", APP);
        assertThat(audit.exitCode()).as(audit.out() + audit.err()).isZero();
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

    private String tenantFile(final String tenant) {
        final Path file = security.tenantClientFile(tenant);
        assertThat(file).isRegularFile();
        return file.toString();
    }

    private Properties tenantClient(final String tenant) {
        return ClusterOptions.commandConfig(Path.of(tenantFile(tenant)));
    }

    /** Whether a dead letter of this error class whose message contains {@code text} reaches the DLQ within a minute. */
    private boolean awaitDeadLetter(final String errorClass, final String text) {
        final Properties p = security.clientConfig(StackPrincipal.ADMIN);
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, context.bootstrapServers());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        try (KafkaConsumer<byte[], byte[]> dlq = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            final List<TopicPartition> parts = dlq.partitionsFor("gpupool.dlq").stream()
                    .map(i -> new TopicPartition(i.topic(), i.partition())).toList();
            dlq.assign(parts);
            dlq.seekToBeginning(parts);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < deadline) {
                for (final ConsumerRecord<byte[], byte[]> r : dlq.poll(Duration.ofMillis(500))) {
                    if (errorClass.equals(header(r, DeadLetters.ERROR_CLASS)) && header(r, DeadLetters.ERROR_MESSAGE).contains(text)) {
                        return true;
                    }
                }
            }
            return false;
        }
    }

    private static String header(final ConsumerRecord<byte[], byte[]> r, final String name) {
        final Header h = r.headers().lastHeader(name);
        return h == null ? "" : new String(h.value(), StandardCharsets.UTF_8);
    }

    private void send(final StackPrincipal principal, final String topic, final byte[] value) throws Exception {
        send(ClusterOptions.commandConfig(clientFile(principal)), topic, value);
    }

    private void send(final Properties p, final String topic, final byte[] value) throws Exception {
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
