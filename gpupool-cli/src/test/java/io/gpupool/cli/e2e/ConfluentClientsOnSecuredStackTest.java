package io.gpupool.cli.e2e;

import io.gpupool.cli.config.ClusterOptions;
import io.gpupool.cli.up.PipelineParts;
import io.gpupool.cli.up.PipelineServices;
import io.gpupool.cli.up.SchedulerService;
import io.gpupool.cli.up.SecureService;
import io.gpupool.cli.up.ServiceGroup;
import io.gpupool.cli.up.StackService;
import io.gpupool.cli.up.TopicsService;
import io.gpupool.cli.up.UpContext;
import io.gpupool.cli.up.UpService;
import io.gpupool.localstack.LocalStackSettings;
import io.gpupool.localstack.broker.BrokerSettings;
import io.gpupool.localstack.secure.StackPrincipal;
import io.gpupool.localstack.secure.StackSecurity;
import io.gpupool.registry.RegistryClientConfig;
import io.gpupool.registry.SchemaRegistryClient;
import io.gpupool.topics.Topic;
import io.gpupool.topics.TopicCatalog;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.avro.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The clients of {@link ConfluentClientsOnStackTest} on {@code gpupool up --secure}, set up as their users
 * would from what the stack writes: SCRAM-SHA-512 over TLS trusting {@code secure/ca.pem} (the client files'
 * {@code gpupool.ca.pem}), the submitter's principal to write, the auditor's to read, the registry over HTTPS
 * as the submitter (a read-only user). Each script then also checks that the broker refuses the submitter's
 * write to the job events. Skipping as there: without node or the Python package, except under CI.
 *
 * <p>Debian 12's python3-confluent-kafka runs on librdkafka 2.0.2, whose SCRAM client sends its nonce twice in
 * the final message, which Kafka 4 brokers refuse as invalid credentials (fixed in librdkafka 2.6.1, which no
 * package CI can install has). With such a librdkafka the Python test checks that SCRAM alone is refused (and
 * that the script says what to do), then runs the whole script over SASL/PLAIN on the same TLS listener, which
 * the stack offers for such clients; with 2.6.1 or newer it runs the whole script over SCRAM.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConfluentClientsOnSecuredStackTest {
    private static final String APP = "gpupool-scheduler-interop-secured";
    private static final String TOPIC_PREFIX = "gpupool";
    private static final List<Integer> SCRAM_FIXED_IN = List.of(2, 6, 1);

    private StackSecurity security;
    private UpContext context;
    private ServiceGroup group;

    @BeforeAll
    void startTheSecuredPipeline(@TempDir final Path dir) throws Exception {
        final Path dataDir = dir.resolve("stack");
        security = StackSecurity.ensure(dataDir);
        final PrintWriter quiet = new PrintWriter(new StringWriter(), true);
        context = new UpContext(new LocalStackSettings(BrokerSettings.defaults(dataDir).withSecurity(security), 0), Map.of(), quiet);
        final List<UpService> services = new ArrayList<>(List.of(new StackService(), new TopicsService(), new SecureService(APP),
                new SchedulerService(APP)));
        services.addAll(PipelineServices.of(OnStackPipeline.smallFleet(7), new PipelineParts(), quiet));
        group = new ServiceGroup(services);
        group.start(context);
        // Python's AvroProducer writes an Avro string key; its read-only registry user can only look the key's
        // schema up, so the admin registers it, as a platform team would for such a client
        final Map<String, Object> admin = new HashMap<>(context.clientMap(StackPrincipal.ADMIN));
        admin.put(RegistryClientConfig.URL, context.registryUrl().orElseThrow());
        new SchemaRegistryClient(RegistryClientConfig.fromMap(admin))
                .register(TopicCatalog.defaults().name(Topic.JOBS) + "-key", Schema.create(Schema.Type.STRING));
    }

    @AfterAll
    void stop() throws Exception {
        if (group != null) {
            group.close();
        }
    }

    @Test
    void confluentsJavaScriptSerdeWithKafkajs() throws Exception {
        InteropClient.node().run(environment("secured-node")).assertAllPass("submit", "write-refused:job-events", "dlq");
    }

    @Test
    void debiansConfluentKafkaForPython() throws Exception {
        final InteropClient python = InteropClient.python();
        final String librdkafka = python.runtime("-c", "import confluent_kafka; print(confluent_kafka.libversion()[0])");
        final Map<String, String> scram = environment("secured-python");
        if (olderThan(librdkafka, SCRAM_FIXED_IN)) {
            final InteropClient.Output refused = python.run(scram);
            // SASL comes after the TLS handshake: the broker's certificate was checked against ca.pem, SCRAM alone failed
            assertThat(refused.steps()).as(refused.text()).filteredOn(s -> !s.contains(" PASS ")).singleElement().asString()
                    .startsWith("STEP broker-login:submit FAIL").contains("invalid credentials")
                    .contains("GPUPOOL_SASL_MECHANISM=PLAIN");
            // what such a client does instead: PLAIN over the same TLS listener, the same users and ACLs
            final Map<String, String> plain = environment("secured-python-plain");
            plain.put("GPUPOOL_SASL_MECHANISM", StackSecurity.PLAIN_MECHANISM);
            python.run(plain).assertAllPass("broker-login:submit", "broker-login:read", "submit", "submit-avro-key",
                    "write-refused:job-events", "dlq");
            return;
        }
        python.run(scram).assertAllPass("broker-login:submit", "broker-login:read", "submit", "submit-avro-key",
                "write-refused:job-events", "dlq");
    }

    /** The scripts' security settings, read from the submitter's client file as a user would, plus the two passwords. */
    private Map<String, String> environment(final String run) {
        final Map<String, String> env = InteropClient.environment(context.bootstrapServers(), context.registryUrl().orElseThrow(),
                TOPIC_PREFIX, run);
        final Properties submitter = ClusterOptions.commandConfig(security.clientFile(StackPrincipal.SUBMITTER));
        assertThat(submitter.getProperty(StackSecurity.CA_PEM_KEY)).isEqualTo(security.caPem().toString());
        env.put("GPUPOOL_SECURITY", StackSecurity.LISTENER);
        env.put("GPUPOOL_CA_PEM", submitter.getProperty(StackSecurity.CA_PEM_KEY));
        env.put("GPUPOOL_SUBMIT_USER", StackPrincipal.SUBMITTER.user());
        env.put("GPUPOOL_SUBMIT_PASSWORD", security.password(StackPrincipal.SUBMITTER));
        env.put("GPUPOOL_READ_USER", StackPrincipal.AUDITOR.user());
        env.put("GPUPOOL_READ_PASSWORD", security.password(StackPrincipal.AUDITOR));
        env.put("GPUPOOL_REGISTRY_USER_INFO", submitter.getProperty(RegistryClientConfig.BASIC_AUTH_USER_INFO));
        return env;
    }

    /** Whether a version such as "2.0.2" (or "2.6.1-RC1") comes before {@code fixed}. */
    static boolean olderThan(final String version, final List<Integer> fixed) {
        final List<Integer> parts = Arrays.stream(version.split("[-+]")[0].split("\\.")).map(Integer::valueOf).toList();
        for (int i = 0; i < fixed.size(); i++) {
            final int have = i < parts.size() ? parts.get(i) : 0;
            if (have != fixed.get(i)) {
                return have < fixed.get(i);
            }
        }
        return false;
    }
}
