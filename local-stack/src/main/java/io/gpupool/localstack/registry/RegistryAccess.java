package io.gpupool.localstack.registry;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Who may do what, checked once in front of every route: an unknown or missing Authorization header
 * gets 401, a read-only user who asks for a change gets 403. What counts as a change is decided here,
 * by method and path, and every request that is not known to be a read is one: a route added later
 * (a DELETE, say) needs admin without being told.
 */
final class RegistryAccess {
    /** Confluent's error code for "user is denied operation". */
    static final int FORBIDDEN = 40301;

    private final Map<String, RegistryRole> roleByAuthorization;

    /** @param roleByAuthorization Authorization header values let in, with their role; empty = no authentication */
    RegistryAccess(final Map<String, RegistryRole> roleByAuthorization) {
        this.roleByAuthorization = Map.copyOf(roleByAuthorization);
    }

    /** Throws the 401 or 403 this request gets; returns when it may go on to its route. */
    void check(final String authorization, final String method, final List<String> path) {
        if (roleByAuthorization.isEmpty()) {
            return;
        }
        final RegistryRole role = Optional.ofNullable(authorization).map(String::trim).map(roleByAuthorization::get)
                .orElseThrow(() -> new RegistryError(401, 401, "Unauthorized"));
        if (role != RegistryRole.ADMIN && !isRead(method, path)) {
            throw new RegistryError(403, FORBIDDEN, "User is denied operation " + method + " /" + String.join("/", path)
                    + ": it changes the registry, which needs the admin role; this user may only read");
        }
    }

    /** GET, a lookup (POST /subjects/{s}) or a compatibility test (POST /compatibility/...) changes nothing. */
    static boolean isRead(final String method, final List<String> path) {
        if (method.equals("GET") || method.equals("HEAD")) {
            return true;
        }
        if (!method.equals("POST") || path.isEmpty()) {
            return false;
        }
        return path.get(0).equals("compatibility") || (path.get(0).equals("subjects") && path.size() == 2);
    }
}
