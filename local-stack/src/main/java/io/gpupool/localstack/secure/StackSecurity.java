package io.gpupool.localstack.secure;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import io.gpupool.topics.TenantJobTopics;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import javax.net.ssl.SSLContext;

/**
 * The secured stack's secrets and settings, kept in {@code <data-dir>/secure/}: a random password per
 * {@link StackPrincipal} (made on the first secured start, then kept), the certificates, and one Kafka
 * client properties file per principal for {@code --command-config}. The broker gets a SASL_SSL listener
 * (SCRAM-SHA-512 over TLS) and the StandardAuthorizer; its controller listener stays on loopback with
 * SASL/PLAIN for the admin alone, so nothing reaches the controller without a password either.
 */
public final class StackSecurity {
    public static final String DIR = "secure";
    public static final String MECHANISM = "SCRAM-SHA-512";
    /** Also enabled on the TLS listener, for clients whose SCRAM cannot talk to Kafka 4 (see {@link #plainUsers}). */
    public static final String PLAIN_MECHANISM = "PLAIN";
    public static final String LISTENER = "SASL_SSL";
    /**
     * The key of {@link #caPem()} in each client file, for the clients of other languages, which need the CA as PEM.
     * Kafka's Java clients and the registry client pass over a key they do not know (Kafka logs it at INFO, as
     * it does the registry's keys in the same file); the {@code gpupool.} start keeps it clear of their names.
     */
    public static final String CA_PEM_KEY = "gpupool.ca.pem";
    private static final String SECRETS = "secrets.properties";
    private static final String STORE_KEY = "store.password";
    private static final String ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";

    /** Key prefix of a tenant's password in the secrets file: {@code tenant.<name>.password}. */
    private static final String TENANT_KEY = "tenant.";
    private static final String PASSWORD_KEY = ".password";

    private final Path dir;
    private final Map<StackPrincipal, String> passwords;
    /** Every tenant ever given a user here, by name: a tenant keeps its password (and its access) across starts. */
    private final SortedMap<String, String> tenantPasswords;
    private final StackCertificates certificates;

    private StackSecurity(final Path dir, final Map<StackPrincipal, String> passwords,
                          final SortedMap<String, String> tenantPasswords, final StackCertificates certificates) {
        this.dir = dir;
        this.passwords = passwords;
        this.tenantPasswords = tenantPasswords;
        this.certificates = certificates;
    }

    /** Whether this data directory was ever started secured: it is then never started without. */
    public static boolean isSecured(final Path dataDir) {
        return Files.isRegularFile(dataDir.resolve(DIR).resolve(SECRETS));
    }

    /** The security of this data directory, its secrets and certificates made now when it has none yet. */
    public static StackSecurity ensure(final Path dataDir) {
        return ensure(dataDir, List.of());
    }

    /**
     * As {@link #ensure(Path)}, with a user for each of {@code tenants} besides those made before
     * ({@code tenant-<name>}: it may write only its tenant's job topic, see {@link StackAcls#tenantBindings}).
     */
    public static StackSecurity ensure(final Path dataDir, final Collection<String> tenants) {
        final Path dir = dataDir.resolve(DIR);
        final Path file = dir.resolve(SECRETS);
        final Properties secrets = new Properties();
        try {
            if (Files.isRegularFile(file)) {
                try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                    secrets.load(reader);
                }
            }
            boolean added = false;
            final SecureRandom random = new SecureRandom();
            for (final String key : keys(tenants)) {
                if (secrets.getProperty(key, "").isBlank()) {
                    secrets.setProperty(key, password(random));
                    added = true;
                }
            }
            if (added) {
                Files.createDirectories(dir);
                writePrivate(file, secrets, "gpupool secured stack: passwords of its users; keep this file private");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read or write " + file, e);
        }
        final Map<StackPrincipal, String> passwords = new EnumMap<>(StackPrincipal.class);
        for (final StackPrincipal p : StackPrincipal.values()) {
            passwords.put(p, secrets.getProperty(p.user() + ".password"));
        }
        final SortedMap<String, String> tenantPasswords = new TreeMap<>();
        for (final String key : secrets.stringPropertyNames()) {
            if (key.startsWith(TENANT_KEY) && key.endsWith(PASSWORD_KEY)) {
                tenantPasswords.put(key.substring(TENANT_KEY.length(), key.length() - PASSWORD_KEY.length()),
                        secrets.getProperty(key));
            }
        }
        final StackCertificates certificates = StackCertificates.ensure(dir, secrets.getProperty(STORE_KEY));
        return new StackSecurity(dir, passwords, tenantPasswords, certificates);
    }

    private static List<String> keys(final Collection<String> tenants) {
        final List<String> keys = new ArrayList<>();
        keys.add(STORE_KEY);
        for (final StackPrincipal p : StackPrincipal.values()) {
            keys.add(p.user() + PASSWORD_KEY);
        }
        for (final String tenant : tenants) {
            final String invalid = TenantJobTopics.invalidTenant(tenant);
            if (invalid != null) {
                throw new IllegalArgumentException(invalid);
            }
            keys.add(TENANT_KEY + tenant + PASSWORD_KEY);
        }
        return keys;
    }

    /** The broker and registry user of a tenant: {@code tenant-<name>} (no principal's name starts so). */
    public static String tenantUser(final String tenant) {
        return "tenant-" + tenant;
    }

    /** Every tenant with a user here, sorted. */
    public SortedSet<String> tenants() {
        return new TreeSet<>(tenantPasswords.keySet());
    }

    public String tenantPassword(final String tenant) {
        final String password = tenantPasswords.get(tenant);
        if (password == null) {
            throw new IllegalArgumentException("tenant " + tenant + " has no user on this stack: start it with"
                    + " `gpupool up --secure --tenants " + tenant + "`");
        }
        return password;
    }

    private static String password(final SecureRandom random) {
        final StringBuilder s = new StringBuilder();
        for (int i = 0; i < 24; i++) {
            s.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
        }
        return s.toString();
    }

    public Path dir() {
        return dir;
    }

    public String password(final StackPrincipal principal) {
        return passwords.get(principal);
    }

    public StackCertificates certificates() {
        return certificates;
    }

    /** The stack's CA certificate as PEM (librdkafka's {@code ssl.ca.location}, Node's {@code ca}). */
    public Path caPem() {
        return certificates.caPem();
    }

    /** The broker's settings over the plaintext ones: listeners, SASL, TLS, the authorizer. */
    public Map<String, String> serverProperties(final int brokerPort, final int controllerPort) {
        final String admin = password(StackPrincipal.ADMIN);
        final Map<String, String> p = new LinkedHashMap<>();
        p.put("listeners", LISTENER + "://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.put("advertised.listeners", LISTENER + "://127.0.0.1:" + brokerPort);
        p.put("inter.broker.listener.name", LISTENER);
        p.put("listener.security.protocol.map", LISTENER + ":" + LISTENER + ",CONTROLLER:SASL_PLAINTEXT");
        p.put("sasl.enabled.mechanisms", MECHANISM + "," + PLAIN_MECHANISM);
        p.put("sasl.mechanism.inter.broker.protocol", MECHANISM);
        p.put("listener.name.sasl_ssl.sasl.enabled.mechanisms", MECHANISM + "," + PLAIN_MECHANISM);
        p.put("listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config", scramJaas(StackPrincipal.ADMIN.user(), admin));
        p.put("listener.name.sasl_ssl.plain.sasl.jaas.config", plainUsers());
        p.put("listener.name.controller.sasl.enabled.mechanisms", "PLAIN");
        p.put("sasl.mechanism.controller.protocol", "PLAIN");
        p.put("listener.name.controller.plain.sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required"
                + " username=\"admin\" password=\"" + admin + "\" user_admin=\"" + admin + "\";");
        p.put("ssl.keystore.location", certificates.serverKeystore().toString());
        p.put("ssl.keystore.password", certificates.password());
        p.put("ssl.key.password", certificates.password());
        p.put("ssl.keystore.type", StackCertificates.TYPE);
        // the broker is its own client over SASL_SSL (inter-broker): it trusts the stack's CA
        p.put("ssl.truststore.location", certificates.truststore().toString());
        p.put("ssl.truststore.password", certificates.password());
        p.put("ssl.truststore.type", StackCertificates.TYPE);
        p.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        p.put("super.users", StackPrincipal.ADMIN.kafkaPrincipal());
        p.put("allow.everyone.if.no.acl.found", "false");
        return p;
    }

    /**
     * The same users and passwords for SASL/PLAIN, on the same TLS listener: librdkafka before 2.6.1 (Debian 12's
     * python3-confluent-kafka runs on 2.0.2) sends its SCRAM nonce twice in the final message, which Kafka 4 refuses
     * as invalid credentials (librdkafka pull request 4895). PLAIN sends the password inside TLS, checked against the
     * broker's certificate; the principal ({@code User:<name>}) and so the ACLs are the same as with SCRAM.
     */
    private String plainUsers() {
        final StringBuilder jaas = new StringBuilder("org.apache.kafka.common.security.plain.PlainLoginModule required");
        for (final StackPrincipal p : StackPrincipal.values()) {
            jaas.append(" user_").append(p.user()).append("=\"").append(password(p)).append('"');
        }
        for (final String tenant : tenants()) {
            jaas.append(" user_").append(tenantUser(tenant)).append("=\"").append(tenantPassword(tenant)).append('"');
        }
        return jaas.append(';').toString();
    }

    /** {@code --add-scram} for every user: the SCRAM credentials are in the cluster's metadata from its first start. */
    public List<String> formatArguments() {
        final List<String> args = new ArrayList<>();
        for (final StackPrincipal p : StackPrincipal.values()) {
            args.add("--add-scram");
            args.add(MECHANISM + "=[name=" + p.user() + ",password=" + password(p) + "]");
        }
        return args;
    }

    /**
     * What a client acting as this principal needs, Kafka's keys and the registry's (Confluent's keys):
     * SASL_SSL with its SCRAM password, the stack's CA as truststore, basic auth on the registry. Only the
     * admin registers schemas; the others look them up ({@code auto.register.schemas=false}).
     */
    public Map<String, String> clientProperties(final StackPrincipal principal) {
        return clientProperties(principal.user(), password(principal), principal == StackPrincipal.ADMIN);
    }

    /**
     * What a tenant's client needs: as a principal's ({@link #clientProperties(StackPrincipal)}) for the user
     * {@code tenant-<name>}, and {@value #TENANT_SETTING}, by which {@code gpupool submit} and {@code cancel}
     * write to the tenant's own job topic and take the tenant from the credentials.
     */
    public Map<String, String> tenantClientProperties(final String tenant) {
        final Map<String, String> p = clientProperties(tenantUser(tenant), tenantPassword(tenant), false);
        p.put(TENANT_SETTING, tenant);
        return p;
    }

    /** The client setting naming the tenant whose credentials these are (see {@link #tenantClientProperties}). */
    public static final String TENANT_SETTING = "gpupool.tenant";

    private Map<String, String> clientProperties(final String user, final String password, final boolean admin) {
        final Map<String, String> p = new LinkedHashMap<>();
        p.put("security.protocol", LISTENER);
        p.put("sasl.mechanism", MECHANISM);
        p.put("sasl.jaas.config", scramJaas(user, password));
        p.put("ssl.truststore.location", certificates.truststore().toString());
        p.put("ssl.truststore.password", certificates.password());
        p.put("ssl.truststore.type", StackCertificates.TYPE);
        p.put("schema.registry.ssl.truststore.location", certificates.truststore().toString());
        p.put("schema.registry.ssl.truststore.password", certificates.password());
        p.put("schema.registry.ssl.truststore.type", StackCertificates.TYPE);
        p.put("basic.auth.credentials.source", "USER_INFO");
        p.put("basic.auth.user.info", user + ":" + password);
        p.put("auto.register.schemas", Boolean.toString(admin));
        return p;
    }

    /** {@link #clientProperties} as Properties, for the Kafka clients. */
    public Properties clientConfig(final StackPrincipal principal) {
        final Properties p = new Properties();
        p.putAll(clientProperties(principal));
        return p;
    }

    /** Where {@link #writeClientFiles()} puts the principal's file: {@code <data-dir>/secure/<user>.properties}. */
    public Path clientFile(final StackPrincipal principal) {
        return dir.resolve(principal.user() + ".properties");
    }

    /** Where {@link #writeClientFiles()} puts a tenant's file: {@code <data-dir>/secure/tenant-<name>.properties}. */
    public Path tenantClientFile(final String tenant) {
        return dir.resolve(tenantUser(tenant) + ".properties");
    }

    /** One {@code --command-config} file per principal and per tenant, readable by this OS user only, with {@link #CA_PEM_KEY} too. */
    public void writeClientFiles() {
        for (final StackPrincipal p : StackPrincipal.values()) {
            writeClientFile(clientFile(p), clientProperties(p), p.user() + " principal");
        }
        for (final String tenant : tenants()) {
            writeClientFile(tenantClientFile(tenant), tenantClientProperties(tenant), "tenant " + tenant);
        }
    }

    private void writeClientFile(final Path file, final Map<String, String> settings, final String whose) {
        final Properties props = new Properties();
        props.putAll(settings);
        props.setProperty(CA_PEM_KEY, caPem().toString());
        try {
            writePrivate(file, props, "gpupool secured stack: Kafka and registry client settings of the " + whose
                    + ", for --command-config; " + CA_PEM_KEY + " is the CA for clients that need PEM");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    /** The registry's HTTPS context (the broker's certificate). */
    public SSLContext registryContext() {
        return certificates.serverContext();
    }

    private static String scramJaas(final String user, final String password) {
        return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user
                + "\" password=\"" + password + "\";";
    }

    private static void writePrivate(final Path file, final Properties properties, final String comment) throws IOException {
        final Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        }
        try (Writer writer = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
            properties.store(writer, comment);
        }
        Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }
}
