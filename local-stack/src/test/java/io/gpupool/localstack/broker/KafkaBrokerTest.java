package io.gpupool.localstack.broker;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The child-JVM broker that {@code gpupool up} runs: first start, reuse of its data, and its parent watch. */
class KafkaBrokerTest {

    @TempDir
    Path dataDir;

    @Test
    void secondStartOnTheSameDataDirReusesTheStorageAndKeepsRecords() throws Exception {
        final BrokerSettings settings = BrokerSettings.defaults(dataDir);
        final String clusterId;
        final int firstPort;
        try (KafkaBroker broker = KafkaBroker.start(settings)) {
            assertThat(broker.formattedNow()).isTrue();
            assertThat(ProcessHandle.of(broker.pid()).flatMap(h -> h.info().command()).orElse(""))
                    .as("the pid we hold (and signal) is the broker JVM itself").endsWith("java");
            if (ChildJvm.ownSession().isPresent()) {
                assertThat(brokerSession(broker.pid())).as("own session: a terminal Ctrl-C does not reach it")
                        .isEqualTo(broker.pid());
            }
            clusterId = clusterId(broker.bootstrapServers());
            firstPort = broker.port();
            try (Admin admin = Admin.create(admin(broker.bootstrapServers()))) {
                admin.createTopics(List.of(new NewTopic("kept", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            }
            try (KafkaProducer<String, String> producer = producer(broker.bootstrapServers())) {
                producer.send(new ProducerRecord<>("kept", "node-1", "before restart")).get(30, TimeUnit.SECONDS);
            }
        }
        assertThat(Files.readString(settings.layout().brokerLog(), StandardCharsets.UTF_8))
                .as("the broker logs to the file in the data dir")
                .contains("Kafka Server started");

        try (KafkaBroker again = KafkaBroker.start(settings)) {
            assertThat(again.formattedNow()).as("a formatted directory is not formatted again").isFalse();
            assertThat(again.port()).as("the previous port is reused when free").isEqualTo(firstPort);
            assertThat(clusterId(again.bootstrapServers())).isEqualTo(clusterId);
            assertThat(readAll(again.bootstrapServers(), "kept"))
                    .extracting(ConsumerRecord::value).containsExactly("before restart");
        }
    }

    @Test
    void theBrokerStopsWhenTheProcessThatStartedItDies() throws Exception {
        final BrokerSettings settings = BrokerSettings.defaults(dataDir);
        // Ports, server.properties and formatted storage through the normal path.
        final KafkaBroker.Prepared prepared = KafkaBroker.prepare(settings);

        final Process parent = new ProcessBuilder("sleep", "120").start();
        final List<String> command = ChildJvm.command("256m", prepared.logFlags(),
                BrokerMain.class.getName(),
                List.of(Long.toString(parent.pid()), settings.layout().serverProperties().toString()));
        final Process broker = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(settings.layout().brokerLog().toFile()))
                .start();
        try {
            final String bootstrap = "127.0.0.1:" + prepared.ports().broker();
            await("the broker answers").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250)).until(() -> {
                assertThat(broker.isAlive()).as("broker JVM alive while starting").isTrue();
                return KafkaBroker.answers(bootstrap, Duration.ofSeconds(2));
            });

            parent.destroyForcibly().waitFor();

            assertThat(broker.waitFor(60, TimeUnit.SECONDS)).as("broker exits after its parent died").isTrue();
            assertThat(Files.readString(settings.layout().brokerLog(), StandardCharsets.UTF_8))
                    .contains("exited; shutting the broker down");
        } finally {
            parent.destroyForcibly();
            Processes.stop(broker.toHandle(), Duration.ofSeconds(30));
        }
    }

    @Test
    void aBusyFixedPortIsRefusedWithTheFix() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            final BrokerSettings settings = BrokerSettings.defaults(dataDir).withPort(taken.getLocalPort());
            Assertions.assertThatThrownBy(() -> KafkaBroker.start(settings))
                    .isInstanceOf(BrokerException.class)
                    .hasMessageContaining("already in use")
                    .hasMessageContaining("--port");
        }
    }

    /** Field 6 of /proc/PID/stat is the session id. */
    private static long brokerSession(final long pid) throws Exception {
        final String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        final String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(fields[3]);
    }

    private static String clusterId(final String bootstrap) throws Exception {
        try (Admin admin = Admin.create(admin(bootstrap))) {
            return admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS);
        }
    }

    private static Properties admin(final String bootstrap) {
        final Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        return p;
    }

    private static KafkaProducer<String, String> producer(final String bootstrap) {
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    private static List<ConsumerRecord<String, String>> readAll(final String bootstrap, final String topic) {
        final Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "reader");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        final List<ConsumerRecord<String, String>> records = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            await("a record").atMost(Duration.ofSeconds(30)).pollInSameThread().pollDelay(Duration.ZERO).until(() -> {
                consumer.poll(Duration.ofMillis(500)).forEach(records::add);
                return !records.isEmpty();
            });
        }
        return records;
    }
}
