package io.gpupool.registry;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The registry client's own TLS settings, with Confluent's keys, so the registry's CA need not be in
 * the JVM's truststore:
 * <pre>
 *   schema.registry.ssl.truststore.location=/path/truststore.p12
 *   schema.registry.ssl.truststore.password=...
 *   schema.registry.ssl.truststore.type=PKCS12        (default JKS, which also reads PKCS12 files)
 *   schema.registry.ssl.keystore.location=...         (a client certificate, for a registry that asks for one)
 *   schema.registry.ssl.keystore.password=...
 *   schema.registry.ssl.keystore.type=PKCS12
 *   schema.registry.ssl.key.password=...              (default: the keystore's password)
 * </pre>
 * Without a truststore or keystore location the JVM's defaults apply, as before.
 */
public final class RegistryTls {
    public static final String PREFIX = "schema.registry.ssl.";
    public static final String TRUSTSTORE_LOCATION = PREFIX + "truststore.location";
    public static final String TRUSTSTORE_PASSWORD = PREFIX + "truststore.password";
    public static final String TRUSTSTORE_TYPE = PREFIX + "truststore.type";
    public static final String KEYSTORE_LOCATION = PREFIX + "keystore.location";
    public static final String KEYSTORE_PASSWORD = PREFIX + "keystore.password";
    public static final String KEYSTORE_TYPE = PREFIX + "keystore.type";
    public static final String KEY_PASSWORD = PREFIX + "key.password";
    private static final String DEFAULT_TYPE = "JKS";

    private RegistryTls() {
    }

    /** The SSL context the settings ask for, or empty when they name neither a truststore nor a keystore. */
    public static Optional<SSLContext> fromMap(final Map<String, ?> configs) {
        final Optional<String> trustLocation = text(configs, TRUSTSTORE_LOCATION);
        final Optional<String> keyLocation = text(configs, KEYSTORE_LOCATION);
        if (trustLocation.isEmpty() && keyLocation.isEmpty()) {
            return Optional.empty();
        }
        try {
            TrustManagerFactory trust = null;
            if (trustLocation.isPresent()) {
                trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                trust.init(load(trustLocation.get(), TRUSTSTORE_LOCATION, text(configs, TRUSTSTORE_PASSWORD),
                        text(configs, TRUSTSTORE_TYPE).orElse(DEFAULT_TYPE)));
            }
            KeyManagerFactory keys = null;
            if (keyLocation.isPresent()) {
                final Optional<String> storePassword = text(configs, KEYSTORE_PASSWORD);
                keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                keys.init(load(keyLocation.get(), KEYSTORE_LOCATION, storePassword, text(configs, KEYSTORE_TYPE).orElse(DEFAULT_TYPE)),
                        text(configs, KEY_PASSWORD).or(() -> storePassword).map(String::toCharArray).orElse(null));
            }
            final SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys == null ? null : keys.getKeyManagers(), trust == null ? null : trust.getTrustManagers(), null);
            return Optional.of(context);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot use the registry's TLS settings (" + PREFIX + "*): " + e.getMessage(), e);
        }
    }

    private static KeyStore load(final String location, final String key, final Optional<String> password, final String type)
            throws GeneralSecurityException {
        final Path path = Path.of(location);
        if (!Files.isRegularFile(path)) {
            throw new IllegalArgumentException(key + "=" + location + ": no such file; give the path of a "
                    + type + " store (keytool -list -keystore FILE shows what one holds)");
        }
        final KeyStore store = KeyStore.getInstance(type);
        try (InputStream in = Files.newInputStream(path)) {
            store.load(in, password.map(String::toCharArray).orElse(null));
        } catch (IOException e) {
            throw new IllegalArgumentException(key + "=" + location + ": cannot read it as a " + type + " store ("
                    + e.getMessage() + "); check the file, its .type and its .password", e);
        }
        return store;
    }

    private static Optional<String> text(final Map<String, ?> configs, final String key) {
        final Object v = configs.get(key);
        return v == null || v.toString().isBlank() ? Optional.empty() : Optional.of(v.toString().trim());
    }
}
