/* bench-upload-sink: the receiving end of the upload workload. An HTTP/1.1 server on 127.0.0.1
 * that reads every request body to its last byte (Content-Length or chunked, after
 * "100 Continue" when asked), discards it, and only then answers 200 with the number of body
 * bytes it read as the response body, keeping the connection open for the next request.
 *
 * Why not nginx: a location that answers with 'return' discards the body in the background and
 * answers at once; curl keeps sending after that early 200, but AsyncHTTPClient takes the
 * complete response as the end of the exchange and stops sending. Answering only after the last
 * byte makes every client send everything, and the echoed count lets each one prove it did.
 *
 *   bench-upload-sink --port-file PATH   binds a free port, writes it to PATH, serves until killed
 *
 * One thread per connection; each reads with recv(2) into a 1 MiB buffer, the cheapest way for
 * a server to take bytes off a socket, so the sink is not what limits the clients. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

enum { BUFFER_SIZE = 1 << 20, HEAD_LIMIT = 64 << 10 };

/* A connection with its read buffer: bytes [start, end) are received and not consumed yet. */
struct connection {
    int fd;
    char *buffer;
    size_t start, end;
};

/* Receives more bytes at the end of the buffer (moving what is left to its front first);
 * 0 at the end of the stream or on an error. */
static ssize_t fill(struct connection *c) {
    if (c->start > 0) {
        memmove(c->buffer, c->buffer + c->start, c->end - c->start);
        c->end -= c->start;
        c->start = 0;
    }
    if (c->end == BUFFER_SIZE) return 0;
    ssize_t got;
    do {
        got = recv(c->fd, c->buffer + c->end, BUFFER_SIZE - c->end, 0);
    } while (got < 0 && errno == EINTR);
    if (got <= 0) return 0;
    c->end += (size_t)got;
    return got;
}

/* Consumes and drops `count` bytes; 0 when the stream ends first. */
static int discard(struct connection *c, int64_t count) {
    while (count > 0) {
        if (c->start == c->end) {
            c->start = c->end = 0;
            ssize_t got;
            do {
                got = recv(c->fd, c->buffer, count < BUFFER_SIZE ? (size_t)count : BUFFER_SIZE, 0);
            } while (got < 0 && errno == EINTR);
            if (got <= 0) return 0;
            c->end = (size_t)got;
        }
        size_t available = c->end - c->start;
        size_t take = (int64_t)available < count ? available : (size_t)count;
        c->start += take;
        count -= (int64_t)take;
    }
    return 1;
}

/* The next line (without CR LF), NUL-terminated in place; NULL when the stream ends first or the
 * line is longer than the head limit. */
static char *read_line(struct connection *c) {
    for (;;) {
        char *begin = c->buffer + c->start;
        char *newline = memchr(begin, '\n', c->end - c->start);
        if (newline != NULL) {
            *newline = '\0';
            if (newline > begin && newline[-1] == '\r') newline[-1] = '\0';
            c->start = (size_t)(newline + 1 - c->buffer);
            return begin;
        }
        if (c->end - c->start > HEAD_LIMIT || fill(c) == 0) return NULL;
    }
}

static int send_all(int fd, const char *text, size_t length) {
    while (length > 0) {
        ssize_t sent = send(fd, text, length, MSG_NOSIGNAL);
        if (sent < 0 && errno == EINTR) continue;
        if (sent <= 0) return 0;
        text += sent;
        length -= (size_t)sent;
    }
    return 1;
}

/* One request: its head, its body discarded, the answer. 0 when the connection is done. */
static int serve_request(struct connection *c) {
    char *line = read_line(c);
    if (line == NULL || line[0] == '\0') return 0;
    int64_t length = 0;
    int chunked = 0, expect_continue = 0;
    while ((line = read_line(c)) != NULL && line[0] != '\0') {
        char *colon = strchr(line, ':');
        if (colon == NULL) continue;
        *colon = '\0';
        char *value = colon + 1;
        while (*value == ' ' || *value == '\t') value++;
        if (strcasecmp(line, "Content-Length") == 0) length = strtoll(value, NULL, 10);
        else if (strcasecmp(line, "Transfer-Encoding") == 0) chunked = strcasestr(value, "chunked") != NULL;
        else if (strcasecmp(line, "Expect") == 0) expect_continue = strcasecmp(value, "100-continue") == 0;
    }
    if (line == NULL) return 0;
    if (expect_continue && !send_all(c->fd, "HTTP/1.1 100 Continue\r\n\r\n", 25)) return 0;
    int64_t received = 0;
    if (chunked) {
        for (;;) {
            char *size_line = read_line(c);
            if (size_line == NULL) return 0;
            int64_t size = strtoll(size_line, NULL, 16);
            if (size == 0) break;
            if (!discard(c, size) || (line = read_line(c)) == NULL) return 0;
            received += size;
        }
        while ((line = read_line(c)) != NULL && line[0] != '\0') {
        } /* trailers */
        if (line == NULL) return 0;
    } else {
        if (!discard(c, length)) return 0;
        received = length;
    }
    char answer[160];
    char body[32];
    int body_length = snprintf(body, sizeof body, "%lld", (long long)received);
    int answer_length = snprintf(answer, sizeof answer,
                                 "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s",
                                 body_length, body);
    return send_all(c->fd, answer, (size_t)answer_length);
}

static void *serve(void *context) {
    struct connection c = {.fd = (int)(intptr_t)context, .buffer = malloc(BUFFER_SIZE)};
    if (c.buffer != NULL) {
        while (serve_request(&c)) {
        }
    }
    free(c.buffer);
    close(c.fd);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 3 || strcmp(argv[1], "--port-file") != 0) {
        fprintf(stderr, "usage: %s --port-file PATH\n", argv[0]);
        return 2;
    }
    int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = 0, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t size = sizeof address;
    if (listener < 0 || bind(listener, (struct sockaddr *)&address, sizeof address) != 0 || listen(listener, 64) != 0 ||
        getsockname(listener, (struct sockaddr *)&address, &size) != 0) {
        perror("bench-upload-sink");
        return 1;
    }
    /* Written whole, then renamed: whoever waits for the file never reads half a port. */
    char temporary[4096];
    snprintf(temporary, sizeof temporary, "%s.tmp", argv[2]);
    FILE *file = fopen(temporary, "w");
    if (file == NULL || fprintf(file, "%d\n", ntohs(address.sin_port)) < 0 || fclose(file) != 0 ||
        rename(temporary, argv[2]) != 0) {
        perror("bench-upload-sink: port file");
        return 1;
    }
    for (;;) {
        int fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            perror("bench-upload-sink: accept");
            return 1;
        }
        pthread_t thread;
        if (pthread_create(&thread, NULL, serve, (void *)(intptr_t)fd) == 0) pthread_detach(thread);
        else close(fd);
    }
}
