package io.gpupool.localstack.registry;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.gpupool.registry.CompatibilityLevel;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Schema Registry REST API subset, as Confluent serves it: same paths, JSON bodies, HTTP
 * statuses and error codes. Routes are matched on path segments below the context path.
 */
final class RegistryHttpHandler implements HttpHandler {
    static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";
    private static final Logger LOG = LoggerFactory.getLogger(RegistryHttpHandler.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_BODY_BYTES = 8 * 1024 * 1024;

    private final RegistryService service;
    private final String contextPath;
    private final RegistryAccess access;

    RegistryHttpHandler(final RegistryService service, final String contextPath, final RegistryAccess access) {
        this.service = service;
        this.contextPath = contextPath;
        this.access = access;
    }

    @Override
    public void handle(final HttpExchange exchange) throws IOException {
        try (exchange) {
            int status = 200;
            JsonNode body;
            try {
                final List<String> path = segments(exchange);
                access.check(exchange.getRequestHeaders().getFirst("Authorization"), exchange.getRequestMethod(), path);
                body = route(exchange.getRequestMethod(), path, exchange);
            } catch (final RegistryError e) {
                status = e.httpStatus();
                body = error(e.errorCode(), e.getMessage());
            } catch (final RuntimeException e) {
                LOG.warn("schema registry: {} {} failed", exchange.getRequestMethod(), exchange.getRequestURI(), e);
                status = 500;
                body = error(50001, "Error in the backend: " + e);
            }
            final byte[] bytes = JSON.writeValueAsBytes(body);
            exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
            if (status == 401) {
                exchange.getResponseHeaders().set("WWW-Authenticate", "Basic realm=\"gpupool-registry\"");
            }
            exchange.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    private List<String> segments(final HttpExchange exchange) {
        String raw = exchange.getRequestURI().getRawPath();
        if (!raw.startsWith(contextPath)) {
            throw notFound();
        }
        raw = raw.substring(contextPath.length());
        final List<String> out = new ArrayList<>();
        for (final String s : raw.split("/")) {
            if (!s.isEmpty()) {
                // A path keeps '+' literal; URLDecoder would turn it into a space.
                out.add(URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    private JsonNode route(final String method, final List<String> p, final HttpExchange ex) throws IOException {
        final int n = p.size();
        if (n == 0) {
            return only(method, "GET", JSON.createObjectNode());
        }
        switch (p.get(0)) {
            case "subjects":
                return subjects(method, p, ex);
            case "schemas":
                if (n == 3 && p.get(1).equals("ids")) {
                    only(method, "GET", null);
                    final int id = parseId(p.get(2));
                    final ObjectNode out = JSON.createObjectNode();
                    out.put("schema", service.schema(id).toString());
                    out.put("guid", service.guid(id));
                    return out;
                }
                if (n == 3 && p.get(1).equals("guids")) {
                    only(method, "GET", null);
                    final int id = service.idOfGuid(p.get(2));
                    final ObjectNode out = JSON.createObjectNode();
                    out.put("schema", service.schema(id).toString());
                    out.put("id", id);
                    out.put("guid", p.get(2));
                    return out;
                }
                throw notFound();
            case "compatibility":
                if (n == 5 && p.get(1).equals("subjects") && p.get(3).equals("versions")) {
                    only(method, "POST", null);
                    final JsonNode req = readBody(ex);
                    final List<String> problems = service.testCompatibility(p.get(2), p.get(4), schemaField(req));
                    final ObjectNode out = JSON.createObjectNode();
                    out.put("is_compatible", problems.isEmpty());
                    if (query(ex, "verbose")) {
                        final ArrayNode messages = out.putArray("messages");
                        problems.forEach(messages::add);
                    }
                    return out;
                }
                throw notFound();
            case "config":
                return config(method, p, ex);
            default:
                throw notFound();
        }
    }

    private JsonNode subjects(final String method, final List<String> p, final HttpExchange ex) throws IOException {
        final int n = p.size();
        final boolean deleted = query(ex, "deleted");
        final boolean permanent = query(ex, "permanent");
        if (n == 1) {
            only(method, "GET", null);
            final ArrayNode out = JSON.createArrayNode();
            service.subjects(deleted).forEach(out::add);
            return out;
        }
        final String subject = p.get(1);
        if (n == 2 && method.equals("DELETE")) {
            final ArrayNode out = JSON.createArrayNode();
            service.deleteSubject(subject, permanent).forEach(out::add);
            return out;
        }
        if (n == 4 && method.equals("DELETE") && p.get(2).equals("versions")) {
            return JSON.getNodeFactory().numberNode(service.deleteVersion(subject, p.get(3), permanent));
        }
        if (n == 2) {
            only(method, "POST", null);
            final SubjectVersion v = service.lookup(subject, schemaField(readBody(ex)));
            return versionJson(v);
        }
        if (!p.get(2).equals("versions")) {
            throw notFound();
        }
        if (n == 3 && method.equals("POST")) {
            final JsonNode req = readBody(ex);
            final JsonNode type = req.get("schemaType");
            if (type != null && !type.isNull() && !type.asText().equalsIgnoreCase("AVRO")) {
                throw RegistryError.invalidSchema("Invalid schema: schemaType " + type.asText()
                        + " is not supported; this registry keeps AVRO schemas only");
            }
            final ObjectNode out = JSON.createObjectNode();
            final int id = service.register(subject, schemaField(req));
            out.put("id", id);
            out.put("guid", service.guid(id));
            return out;
        }
        if (n == 3) {
            only(method, "GET", null);
            final ArrayNode out = JSON.createArrayNode();
            service.versionNumbers(subject, deleted).forEach(out::add);
            return out;
        }
        if (n == 4) {
            only(method, "GET", null);
            return versionJson(service.version(subject, p.get(3), deleted));
        }
        if (n == 5 && p.get(4).equals("schema")) {
            only(method, "GET", null);
            return JSON.readTree(service.schema(service.version(subject, p.get(3), deleted).id()).toString());
        }
        throw notFound();
    }

    private JsonNode config(final String method, final List<String> p, final HttpExchange ex) throws IOException {
        final int n = p.size();
        if (n > 2) {
            throw notFound();
        }
        final String subject = n == 2 ? p.get(1) : null;
        final ObjectNode out = JSON.createObjectNode();
        switch (method) {
            case "GET": {
                final CompatibilityLevel level;
                if (subject == null) {
                    level = service.globalLevel();
                } else {
                    final Optional<CompatibilityLevel> own = service.subjectLevel(subject);
                    if (own.isEmpty() && !query(ex, "defaultToGlobal")) {
                        throw new RegistryError(404, 40408,
                                "Subject '" + subject + "' does not have subject-level compatibility configured");
                    }
                    level = own.orElseGet(service::globalLevel);
                }
                out.put("compatibilityLevel", level.name());
                return out;
            }
            case "PUT": {
                final JsonNode req = readBody(ex);
                final JsonNode c = req.get("compatibility");
                if (c == null || !c.isTextual()) {
                    throw RegistryError.invalidCompatibility(String.valueOf(c));
                }
                out.put("compatibility", service.setLevel(subject, c.asText()).name());
                return out;
            }
            case "DELETE": {
                if (subject == null) {
                    throw new RegistryError(405, 405, "HTTP 405 Method Not Allowed");
                }
                out.put("compatibilityLevel", service.deleteSubjectLevel(subject).name());
                return out;
            }
            default:
                throw new RegistryError(405, 405, "HTTP 405 Method Not Allowed");
        }
    }

    private JsonNode versionJson(final SubjectVersion v) {
        final ObjectNode out = JSON.createObjectNode();
        out.put("subject", v.subject());
        out.put("version", v.version());
        out.put("id", v.id());
        out.put("guid", service.guid(v.id()));
        out.put("schema", service.schema(v.id()).toString());
        if (v.deleted()) {
            out.put("deleted", true);
        }
        return out;
    }

    private static boolean query(final HttpExchange ex, final String name) {
        final String q = ex.getRequestURI().getRawQuery();
        if (q == null) {
            return false;
        }
        for (final String part : q.split("&")) {
            if (part.equalsIgnoreCase(name + "=true")) {
                return true;
            }
        }
        return false;
    }

    private static String schemaField(final JsonNode req) {
        final JsonNode s = req.get("schema");
        return s == null || !s.isTextual() ? null : s.asText();
    }

    private static JsonNode readBody(final HttpExchange ex) throws IOException {
        final byte[] bytes;
        try (InputStream in = ex.getRequestBody()) {
            bytes = in.readNBytes(MAX_BODY_BYTES + 1);
        }
        if (bytes.length > MAX_BODY_BYTES) {
            throw new RegistryError(413, 413, "request body larger than " + MAX_BODY_BYTES + " bytes");
        }
        try {
            final JsonNode node = JSON.readTree(bytes);
            if (node == null || !node.isObject()) {
                throw new RegistryError(400, 400, "request body must be a JSON object");
            }
            return node;
        } catch (final JsonProcessingException e) {
            throw new RegistryError(400, 400, "malformed JSON in request body: " + e.getOriginalMessage());
        }
    }

    private static int parseId(final String text) {
        try {
            return Integer.parseInt(text);
        } catch (final NumberFormatException e) {
            throw RegistryError.schemaNotFound("Schema " + text + " not found");
        }
    }

    private static JsonNode only(final String method, final String allowed, final JsonNode result) {
        if (!method.equals(allowed)) {
            throw new RegistryError(405, 405, "HTTP 405 Method Not Allowed");
        }
        return result;
    }

    private static RegistryError notFound() {
        return new RegistryError(404, 404, "HTTP 404 Not Found");
    }

    private static ObjectNode error(final int code, final String message) {
        final ObjectNode out = JSON.createObjectNode();
        out.put("error_code", code);
        out.put("message", message);
        return out;
    }
}
