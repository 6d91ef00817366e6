package io.gpupool.registry;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.nio.charset.StandardCharsets;
import javax.net.ssl.SSLContext;

/**
 * Where the registry is and how to authenticate. Keys are the ones Confluent's clients use, so
 * existing client.properties files work:
 * <pre>
 *   schema.registry.url=http://host:8081[,http://other:8081]   (may carry a path, e.g. /apis/ccompat/v7)
 *   basic.auth.credentials.source=USER_INFO
 *   basic.auth.user.info=user:secret
 *   bearer.auth.token=eyJ...                                  (bearer.auth.credentials.source=STATIC_TOKEN)
 *   schema.registry.request.timeout.ms=10000
 *   schema.registry.ssl.truststore.location=...               (and the other schema.registry.ssl.* keys: {@link RegistryTls})
 * </pre>
 */
public final class RegistryClientConfig {
    public static final String URL = "schema.registry.url";
    public static final String BASIC_AUTH_SOURCE = "basic.auth.credentials.source";
    public static final String BASIC_AUTH_USER_INFO = "basic.auth.user.info";
    public static final String BEARER_TOKEN = "bearer.auth.token";
    public static final String REQUEST_TIMEOUT_MS = "schema.registry.request.timeout.ms";

    private final List<URI> baseUrls;
    private final String authorization;
    private final Duration requestTimeout;
    private final SSLContext sslContext;

    private RegistryClientConfig(final List<URI> baseUrls, final String authorization, final Duration requestTimeout,
            final SSLContext sslContext) {
        this.baseUrls = List.copyOf(baseUrls);
        this.authorization = authorization;
        this.requestTimeout = requestTimeout;
        this.sslContext = sslContext;
    }

    /** A client of one registry without authentication. */
    public static RegistryClientConfig of(final String url) {
        return new RegistryClientConfig(parseUrls(url), null, Duration.ofSeconds(10), null);
    }

    public RegistryClientConfig withBasicAuth(final String user, final String password) {
        final String token = Base64.getEncoder().encodeToString(
                (user + ":" + password).getBytes(StandardCharsets.UTF_8));
        return new RegistryClientConfig(baseUrls, "Basic " + token, requestTimeout, sslContext);
    }

    public RegistryClientConfig withBearerToken(final String token) {
        return new RegistryClientConfig(baseUrls, "Bearer " + Objects.requireNonNull(token, "token"), requestTimeout, sslContext);
    }

    public RegistryClientConfig withRequestTimeout(final Duration timeout) {
        return new RegistryClientConfig(baseUrls, authorization, timeout, sslContext);
    }

    /** TLS with this context (trusted CAs, a client certificate) instead of the JVM's default. */
    public RegistryClientConfig withSslContext(final SSLContext context) {
        return new RegistryClientConfig(baseUrls, authorization, requestTimeout, Objects.requireNonNull(context, "context"));
    }

    /** Reads the Confluent-style keys above from a client configuration map. */
    public static RegistryClientConfig fromMap(final Map<String, ?> configs) {
        final Object url = configs.get(URL);
        if (url == null || url.toString().isBlank()) {
            throw new IllegalArgumentException("missing " + URL + ": set it to the registry's base URL, e.g. "
                    + URL + "=http://127.0.0.1:8081");
        }
        RegistryClientConfig config = of(url.toString());
        final Object timeout = configs.get(REQUEST_TIMEOUT_MS);
        if (timeout != null) {
            config = config.withRequestTimeout(Duration.ofMillis(Long.parseLong(timeout.toString().trim())));
        }
        final Object userInfo = configs.get(BASIC_AUTH_USER_INFO);
        final Object source = configs.get(BASIC_AUTH_SOURCE);
        if (userInfo != null && (source == null || "USER_INFO".equalsIgnoreCase(source.toString().trim()))) {
            final String s = userInfo.toString();
            final int colon = s.indexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException(BASIC_AUTH_USER_INFO + " must be user:password");
            }
            config = config.withBasicAuth(s.substring(0, colon), s.substring(colon + 1));
        }
        final Object bearer = configs.get(BEARER_TOKEN);
        if (bearer != null && !bearer.toString().isBlank()) {
            config = config.withBearerToken(bearer.toString().trim());
        }
        final Optional<SSLContext> tls = RegistryTls.fromMap(configs);
        if (tls.isPresent()) {
            config = config.withSslContext(tls.get());
        }
        return config;
    }

    private static List<URI> parseUrls(final String text) {
        final List<URI> urls = new ArrayList<>();
        for (final String part : text.split(",")) {
            final String s = part.trim();
            if (s.isEmpty()) {
                continue;
            }
            final URI uri;
            try {
                uri = URI.create(s.endsWith("/") ? s.substring(0, s.length() - 1) : s);
            } catch (final IllegalArgumentException e) {
                throw new IllegalArgumentException("bad " + URL + " '" + s + "': " + e.getMessage(), e);
            }
            if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
                throw new IllegalArgumentException("bad " + URL + " '" + s
                        + "': use http:// or https:// (mock://NAME for an in-memory registry in tests)");
            }
            urls.add(uri);
        }
        if (urls.isEmpty()) {
            throw new IllegalArgumentException("empty " + URL);
        }
        return urls;
    }

    /** Base URLs without a trailing slash; tried in order when one cannot be reached. */
    public List<URI> baseUrls() {
        return baseUrls;
    }

    /** Value of the Authorization header, if any. */
    public Optional<String> authorization() {
        return Optional.ofNullable(authorization);
    }

    public Duration requestTimeout() {
        return requestTimeout;
    }

    /** The TLS context of {@code schema.registry.ssl.*}; empty: the JVM's default. */
    public Optional<SSLContext> sslContext() {
        return Optional.ofNullable(sslContext);
    }
}
