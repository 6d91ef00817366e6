package io.gpupool.localstack.registry;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Schema-Registry-compatible HTTP server (the Confluent REST subset gpupool's client uses) over
 * the JDK's HTTP server, with real Avro compatibility checks and its schemas kept in a compacted
 * Kafka topic ({@code _schemas}) so ids survive restarts.
 *
 * <pre>
 *   try (SchemaRegistryServer registry = SchemaRegistryServer.start(bootstrap, "127.0.0.1", 0)) {
 *       String url = registry.url();   // http://127.0.0.1:PORT
 *   }
 * </pre>
 */
public final class SchemaRegistryServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SchemaRegistryServer.class);

    private final HttpServer http;
    private final ExecutorService executor;
    private final SchemaLog log;
    private final String url;

    private SchemaRegistryServer(final HttpServer http, final ExecutorService executor, final SchemaLog log,
                                 final String url) {
        this.http = http;
        this.executor = executor;
        this.log = log;
        this.url = url;
    }

    /** Starts a registry that keeps its schemas in {@code _schemas} on that Kafka cluster; port 0 = any free port. */
    public static SchemaRegistryServer start(final String bootstrapServers, final String host, final int port) {
        return builder().kafka(bootstrapServers).host(host).port(port).start();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Base URL, e.g. http://127.0.0.1:8081 (with the context path, when one is set). */
    public String url() {
        return url;
    }

    public int port() {
        return http.getAddress().getPort();
    }

    @Override
    public void close() {
        http.stop(0);
        executor.shutdownNow();
        log.close();
        LOG.info("schema registry at {} stopped", url);
    }

    /** Options: where schemas are kept, where to listen, and optional authentication. */
    public static final class Builder {
        private String bootstrapServers;
        private Properties kafkaClient = new Properties();
        private String topic = KafkaSchemaLog.DEFAULT_TOPIC;
        private String host = "127.0.0.1";
        private int port;
        private String contextPath = "";
        private final Map<String, RegistryRole> authorizations = new LinkedHashMap<>();
        private SSLContext tls;
        private Duration kafkaTimeout = Duration.ofSeconds(30);

        private Builder() {
        }

        /** Keep schemas in Kafka; without it the registry forgets everything when it stops. */
        public Builder kafka(final String servers) {
            this.bootstrapServers = Objects.requireNonNull(servers, "bootstrapServers");
            return this;
        }

        /** Keep schemas in Kafka, with these client settings (SASL, TLS) for the registry's own Kafka clients. */
        public Builder kafka(final String servers, final Properties clientProperties) {
            this.kafkaClient = (Properties) clientProperties.clone();
            return kafka(servers);
        }

        public Builder topic(final String name) {
            this.topic = Objects.requireNonNull(name, "topic");
            return this;
        }

        public Builder host(final String name) {
            this.host = Objects.requireNonNull(name, "host");
            return this;
        }

        public Builder port(final int number) {
            if (number < 0 || number > 65535) {
                throw new IllegalArgumentException("registry port must be 0 (any free port) or 1..65535, got " + number);
            }
            this.port = number;
            return this;
        }

        /** Serve below a path, e.g. /apis/ccompat/v7 as Apicurio does. */
        public Builder contextPath(final String path) {
            String p = path.trim();
            while (p.endsWith("/")) {
                p = p.substring(0, p.length() - 1);
            }
            if (!p.isEmpty() && !p.startsWith("/")) {
                p = "/" + p;
            }
            this.contextPath = p;
            return this;
        }

        /** Require HTTP basic authentication with this user, who may do everything (may be called for several users). */
        public Builder basicAuth(final String user, final String password) {
            return basicAuth(user, password, RegistryRole.ADMIN);
        }

        /** Require HTTP basic authentication; this user has this role. */
        public Builder basicAuth(final String user, final String password, final RegistryRole role) {
            authorizations.put("Basic " + Base64.getEncoder().encodeToString(
                    (user + ":" + password).getBytes(StandardCharsets.UTF_8)), Objects.requireNonNull(role, "role"));
            return this;
        }

        /** Require (or also accept) this bearer token, with the admin role. */
        public Builder bearerToken(final String token) {
            authorizations.put("Bearer " + Objects.requireNonNull(token, "token"), RegistryRole.ADMIN);
            return this;
        }

        /** Serve HTTPS with this context (its key manager holds the server's certificate) instead of HTTP. */
        public Builder tls(final SSLContext context) {
            this.tls = Objects.requireNonNull(context, "context");
            return this;
        }

        public Builder kafkaTimeout(final Duration timeout) {
            this.kafkaTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        public SchemaRegistryServer start() {
            final SchemaLog log = bootstrapServers == null ? SchemaLog.none()
                    : new KafkaSchemaLog(bootstrapServers, kafkaClient, topic, kafkaTimeout);
            try {
                final SchemaStore store = new SchemaStore();
                log.replay(store);
                final RegistryService service = new RegistryService(store, log);
                final HttpServer http = listen();
                http.createContext(contextPath.isEmpty() ? "/" : contextPath,
                        new RegistryHttpHandler(service, contextPath, new RegistryAccess(authorizations)));
                final AtomicInteger threads = new AtomicInteger();
                final ExecutorService executor = Executors.newFixedThreadPool(4, r -> {
                    final Thread t = new Thread(r, "schema-registry-http-" + threads.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
                http.setExecutor(executor);
                http.start();
                final String url = (tls == null ? "http" : "https") + "://" + hostForUrl(host) + ":" + http.getAddress().getPort() + contextPath;
                LOG.info("schema registry listening at {} ({})", url,
                        bootstrapServers == null ? "in memory" : "schemas in " + topic + " on " + bootstrapServers);
                return new SchemaRegistryServer(http, executor, log, url);
            } catch (final IOException e) {
                log.close();
                throw new UncheckedIOException("cannot listen on " + host + ":" + port
                        + (port == 0 ? "" : " (in use? choose another port, or 0 for any free one)"), e);
            } catch (final RuntimeException e) {
                log.close();
                throw e;
            }
        }

        private HttpServer listen() throws IOException {
            final InetSocketAddress address = new InetSocketAddress(host, port);
            if (tls == null) {
                return HttpServer.create(address, 64);
            }
            final HttpsServer https = HttpsServer.create(address, 64);
            https.setHttpsConfigurator(new HttpsConfigurator(tls));
            return https;
        }

        private static String hostForUrl(final String h) {
            if (h.equals("0.0.0.0") || h.equals("::")) {
                return "127.0.0.1";
            }
            return h.contains(":") ? "[" + h + "]" : h;
        }
    }
}
