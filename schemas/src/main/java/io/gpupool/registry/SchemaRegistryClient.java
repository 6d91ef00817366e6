package io.gpupool.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLException;
import org.apache.avro.Schema;

/**
 * A REST client for the Schema Registry API subset gpupool uses, over java.net.http. It speaks to
 * Confluent Schema Registry, Apicurio Registry's ccompat API (base URL .../apis/ccompat/v7),
 * Karapace, Redpanda and gpupool's own local registry. Thread-safe; schemas are cached by id and
 * ids by (subject, schema), so a serializer asks the server once per schema.
 */
public final class SchemaRegistryClient implements SchemaRegistry {
    public static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";
    private static final String ACCEPT = "application/vnd.schemaregistry.v1+json, "
            + "application/vnd.schemaregistry+json; qs=0.9, application/json; qs=0.5";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final RegistryClientConfig config;
    private final HttpClient http;
    private final Map<Integer, Schema> schemaById = new ConcurrentHashMap<>();
    private final Map<SubjectSchema, Integer> idBySubjectSchema = new ConcurrentHashMap<>();

    public SchemaRegistryClient(final RegistryClientConfig config) {
        this.config = Objects.requireNonNull(config, "config");
        final HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(config.requestTimeout());
        config.sslContext().ifPresent(builder::sslContext);
        this.http = builder.build();
    }

    public static SchemaRegistryClient of(final String url) {
        return new SchemaRegistryClient(RegistryClientConfig.of(url));
    }

    /** POST /subjects/{s}/versions: registers (or finds) the schema; returns its global id. */
    @Override
    public int register(final String subject, final Schema schema) {
        final SubjectSchema key = new SubjectSchema(subject, schema);
        final Integer cached = idBySubjectSchema.get(key);
        if (cached != null) {
            return cached;
        }
        final JsonNode body = send("POST", "/subjects/" + encode(subject) + "/versions", schemaBody(schema));
        final int id = requiredInt(body, "id");
        idBySubjectSchema.put(key, id);
        schemaById.putIfAbsent(id, schema);
        return id;
    }

    /** POST /subjects/{s}: finds the version of the subject equal to this schema. */
    public RegisteredSchema lookup(final String subject, final Schema schema) {
        final JsonNode body = send("POST", "/subjects/" + encode(subject), schemaBody(schema));
        final RegisteredSchema found = registered(body, subject);
        idBySubjectSchema.put(new SubjectSchema(subject, schema), found.id());
        schemaById.putIfAbsent(found.id(), found.schema());
        return found;
    }

    @Override
    public int idOf(final String subject, final Schema schema) {
        final Integer cached = idBySubjectSchema.get(new SubjectSchema(subject, schema));
        return cached != null ? cached : lookup(subject, schema).id();
    }

    /** GET /schemas/ids/{id}. */
    @Override
    public Schema schemaById(final int id) {
        final Schema cached = schemaById.get(id);
        if (cached != null) {
            return cached;
        }
        final JsonNode body = send("GET", "/schemas/ids/" + id, null);
        final Schema schema = parse(requiredText(body, "schema"), "schema id " + id);
        schemaById.putIfAbsent(id, schema);
        return schema;
    }

    /** GET /subjects/{s}/versions/latest. */
    public RegisteredSchema latest(final String subject) {
        return registered(send("GET", "/subjects/" + encode(subject) + "/versions/latest", null), subject);
    }

    /** GET /subjects/{s}/versions/{v}. */
    public RegisteredSchema version(final String subject, final int version) {
        return registered(send("GET", "/subjects/" + encode(subject) + "/versions/" + version, null), subject);
    }

    /** GET /subjects. */
    public List<String> subjects() {
        final JsonNode body = send("GET", "/subjects", null);
        final List<String> out = new ArrayList<>();
        body.forEach(n -> out.add(n.asText()));
        return out;
    }

    /** POST /compatibility/subjects/{s}/versions/latest?verbose=true. */
    public CompatibilityResult testCompatibility(final String subject, final Schema schema) {
        final JsonNode body = send("POST", "/compatibility/subjects/" + encode(subject)
                + "/versions/latest?verbose=true", schemaBody(schema));
        final JsonNode flag = body.get("is_compatible");
        if (flag == null || !flag.isBoolean()) {
            throw new SchemaRegistryException("registry answer lacks is_compatible: " + body, 200, -1);
        }
        final List<String> messages = new ArrayList<>();
        final JsonNode m = body.get("messages");
        if (m != null) {
            m.forEach(n -> messages.add(n.asText()));
        }
        return new CompatibilityResult(flag.asBoolean(), messages);
    }

    /** GET /config: the global compatibility level. */
    public CompatibilityLevel globalCompatibility() {
        return level(send("GET", "/config", null));
    }

    /** PUT /config. */
    public CompatibilityLevel setGlobalCompatibility(final CompatibilityLevel level) {
        return level(send("PUT", "/config", levelBody(level)));
    }

    /** GET /config/{s}: the subject's own level; empty when the subject has none of its own. */
    public Optional<CompatibilityLevel> subjectCompatibility(final String subject) {
        try {
            return Optional.of(level(send("GET", "/config/" + encode(subject), null)));
        } catch (final SubjectNotFoundException e) {
            return Optional.empty();
        } catch (final SchemaRegistryException e) {
            // 40408: subject-level compatibility not configured (Confluent 7+). A bare 404 is
            // left to fail: it usually means a wrong base URL, not a missing setting.
            if (e.errorCode() == RegistryErrors.SUBJECT_COMPATIBILITY_NOT_CONFIGURED) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /** PUT /config/{s}. */
    public CompatibilityLevel setSubjectCompatibility(final String subject, final CompatibilityLevel level) {
        return level(send("PUT", "/config/" + encode(subject), levelBody(level)));
    }

    private static String schemaBody(final Schema schema) {
        final ObjectNode node = JSON.createObjectNode();
        node.put("schema", schema.toString());
        return node.toString();
    }

    private static String levelBody(final CompatibilityLevel level) {
        final ObjectNode node = JSON.createObjectNode();
        node.put("compatibility", level.name());
        return node.toString();
    }

    private static CompatibilityLevel level(final JsonNode body) {
        // GET answers compatibilityLevel, PUT echoes compatibility.
        final JsonNode n = body.has("compatibilityLevel") ? body.get("compatibilityLevel") : body.get("compatibility");
        if (n == null) {
            throw new SchemaRegistryException("registry answer lacks a compatibility level: " + body, 200, -1);
        }
        return CompatibilityLevel.parse(n.asText());
    }

    private RegisteredSchema registered(final JsonNode body, final String subject) {
        final String s = body.hasNonNull("subject") ? body.get("subject").asText() : subject;
        return new RegisteredSchema(s, requiredInt(body, "id"), requiredInt(body, "version"),
                parse(requiredText(body, "schema"), s));
    }

    private static Schema parse(final String text, final String what) {
        try {
            return new Schema.Parser().parse(text);
        } catch (final RuntimeException e) {
            throw new InvalidSchemaException("registry returned an unparseable Avro schema for " + what + ": "
                    + e.getMessage(), 200, -1);
        }
    }

    private static int requiredInt(final JsonNode body, final String field) {
        final JsonNode n = body.get(field);
        if (n == null || !n.canConvertToInt()) {
            throw new SchemaRegistryException("registry answer lacks '" + field + "': " + body, 200, -1);
        }
        return n.asInt();
    }

    private static String requiredText(final JsonNode body, final String field) {
        final JsonNode n = body.get(field);
        if (n == null || !n.isTextual()) {
            throw new SchemaRegistryException("registry answer lacks '" + field + "': " + body, 200, -1);
        }
        return n.asText();
    }

    // Subjects may hold characters that are not path-safe; URLEncoder writes '+' for space, which a
    // path does not decode.
    static String encode(final String subject) {
        return URLEncoder.encode(subject, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private JsonNode send(final String method, final String path, final String body) {
        IOException lastFailure = null;
        for (final URI base : config.baseUrls()) {
            final URI uri = URI.create(base + path);
            final HttpRequest.Builder request = HttpRequest.newBuilder(uri)
                    .timeout(config.requestTimeout())
                    .header("Accept", ACCEPT)
                    .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
            if (body != null) {
                request.header("Content-Type", CONTENT_TYPE);
            }
            config.authorization().ifPresent(a -> request.header("Authorization", a));
            final HttpResponse<String> response;
            try {
                response = http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            } catch (final SSLException e) {
                throw new SchemaRegistryException("TLS with the schema registry at " + uri + " failed (" + e.getMessage()
                        + "): trust its CA with " + RegistryTls.TRUSTSTORE_LOCATION + " (and .password)", e);
            } catch (final IOException e) {
                // Connection refused, reset or timed out: the next URL may be up.
                lastFailure = e;
                continue;
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SchemaRegistryException("interrupted while calling " + uri, e);
            }
            return answer(method, uri, response);
        }
        throw new SchemaRegistryException("schema registry not reachable at " + config.baseUrls()
                + ": " + lastFailure, lastFailure);
    }

    private static JsonNode answer(final String method, final URI uri, final HttpResponse<String> response) {
        final int status = response.statusCode();
        JsonNode json = null;
        try {
            json = response.body() == null || response.body().isBlank() ? null : JSON.readTree(response.body());
        } catch (final IOException e) {
            // not JSON: handled below with the raw text
        }
        if (status >= 200 && status < 300) {
            if (json == null) {
                throw new SchemaRegistryException(method + " " + uri + " answered " + status
                        + " without a JSON body: " + abbreviate(response.body()), status, -1);
            }
            return json;
        }
        final int code = json != null && json.has("error_code") ? json.get("error_code").asInt(-1) : -1;
        final String message = (json != null && json.has("message") ? json.get("message").asText()
                : abbreviate(response.body())) + " (" + method + " " + uri + ", HTTP " + status
                + (code >= 0 ? ", error_code " + code : "") + ")";
        throw RegistryErrors.toException(status, code, message);
    }

    private static String abbreviate(final String s) {
        if (s == null) {
            return "";
        }
        return s.length() > 300 ? s.substring(0, 300) + "..." : s;
    }

    /** Cache key: the subject and the schema's full JSON text (Schema.equals ignores doc strings). */
    private static final class SubjectSchema {
        private final String subject;
        private final String schema;

        SubjectSchema(final String subject, final Schema schema) {
            this.subject = subject;
            this.schema = schema.toString();
        }

        @Override
        public boolean equals(final Object o) {
            return o instanceof SubjectSchema && ((SubjectSchema) o).subject.equals(subject)
                    && ((SubjectSchema) o).schema.equals(schema);
        }

        @Override
        public int hashCode() {
            return 31 * subject.hashCode() + schema.hashCode();
        }
    }
}
