package io.gpupool.serde;

import io.gpupool.registry.InMemorySchemaRegistry;
import io.gpupool.registry.RegistryClientConfig;
import io.gpupool.registry.SchemaRegistry;
import io.gpupool.registry.SchemaRegistryClient;
import java.util.HashMap;
import java.util.Map;

/**
 * Serde settings, with Confluent's key names so existing client.properties files work:
 * <pre>
 *   schema.registry.url=http://127.0.0.1:8081   (mock://NAME: a shared in-memory registry, for tests)
 *   auto.register.schemas=true                  (false: the schema must already be registered; it is looked up)
 *   specific.avro.value.type=io.gpupool.avro.NodeInventory   (reader type when built by class name)
 *   specific.avro.key.type=...
 * </pre>
 * plus the authentication keys of {@link RegistryClientConfig}.
 */
public final class AvroSerdeConfig {
    public static final String AUTO_REGISTER = "auto.register.schemas";
    public static final String VALUE_TYPE = "specific.avro.value.type";
    public static final String KEY_TYPE = "specific.avro.key.type";
    public static final String MOCK_SCHEME = "mock://";

    private AvroSerdeConfig() {
    }

    /** {@code auto.register.schemas}: true unless set to false (a client that may only look schemas up). */
    public static boolean autoRegister(final Map<String, ?> configs) {
        final Object v = configs.get(AUTO_REGISTER);
        if (v == null) {
            return true;
        }
        final String s = v.toString().trim();
        if (!s.equalsIgnoreCase("true") && !s.equalsIgnoreCase("false")) {
            throw new IllegalArgumentException(AUTO_REGISTER + "=" + s + ": use true or false");
        }
        return Boolean.parseBoolean(s);
    }

    /**
     * Serde settings for a Kafka client: its properties (which may carry the registry's
     * authentication keys, as a Confluent client.properties does) plus the registry URL.
     */
    public static Map<String, Object> forClient(final Map<?, ?> client, final String registryUrl) {
        final Map<String, Object> out = new HashMap<>();
        client.forEach((k, v) -> out.put(k.toString(), v));
        out.put(RegistryClientConfig.URL, registryUrl);
        return out;
    }

    /** The registry the URL names: an HTTP client, or the in-memory one for mock://NAME. */
    public static SchemaRegistry registry(final Map<String, ?> configs) {
        final Object url = configs.get(RegistryClientConfig.URL);
        if (url != null && url.toString().trim().startsWith(MOCK_SCHEME)) {
            return InMemorySchemaRegistry.named(url.toString().trim().substring(MOCK_SCHEME.length()));
        }
        return new SchemaRegistryClient(RegistryClientConfig.fromMap(configs));
    }

    static Class<?> readerType(final Map<String, ?> configs, final boolean isKey) {
        final Object v = configs.get(isKey ? KEY_TYPE : VALUE_TYPE);
        if (v == null) {
            return null;
        }
        if (v instanceof Class) {
            return (Class<?>) v;
        }
        try {
            return Class.forName(v.toString().trim(), true, Thread.currentThread().getContextClassLoader());
        } catch (final ClassNotFoundException e) {
            throw new IllegalArgumentException((isKey ? KEY_TYPE : VALUE_TYPE) + "=" + v
                    + ": no such class on the classpath (expected a generated Avro class such as "
                    + "io.gpupool.avro.NodeInventory)", e);
        }
    }
}
