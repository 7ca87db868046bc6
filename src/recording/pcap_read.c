/* UDP datagrams out of a capture file (pcap_read.h). */
#define _DEFAULT_SOURCE /* pcap/pcap.h uses u_int, u_char (BSD types glibc gives only outside strict POSIX) */
#include "recording/pcap_read.h"

#include "core/context.h"
#include "core/file_open.h"
#include "formats/format.h"

#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DATAGRAM 65535u
#define UNITS (MAX_DATAGRAM / 8u + 1u) /* fragment offsets count 8-byte units */

typedef struct pending {
    int used;
    uint32_t src, dst;
    uint16_t id;
    uint64_t age;          /* the record that started it */
    long total;            /* the datagram's IP payload bytes; -1 until the last fragment came */
    uint32_t covered;      /* 8-byte units received */
    unsigned char seen[UNITS / 8 + 1];
    unsigned char *data;   /* MAX_DATAGRAM bytes */
} pending;

struct lsim_pcap_reader {
    lsim_context *ctx;
    char *path;
    pcap_t *pcap;
    int link;
    lsim_pcap_counts counts;
    pending slot[LSIM_PCAP_MAX_PENDING];
    unsigned char *data; /* the slots' buffers, one block */
};

lsim_status lsim_pcap_open(lsim_context *ctx, const char *path, lsim_pcap_reader **out)
{
    *out = NULL;
    FILE *fp = NULL;
    lsim_status st = lsim_file_open(ctx, path, LSIM_INPUT_RECORDING, &fp, NULL);
    if (st != LSIM_OK)
        return st;
    unsigned char head[4] = {0};
    const size_t got = fread(head, 1, sizeof head, fp);
    if (!lsim_pcap_magic(head, got)) {
        fclose(fp);
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s: not a capture file (%s): a recording is a pcap or pcapng file "
                         "(tcpdump -w, Wireshark, Ouster Studio, VeloView)", path,
                         got < 4 ? "shorter than its 4-byte magic number" : "its magic number is neither pcap's nor pcapng's");
    }
    rewind(fp);
    char errbuf[PCAP_ERRBUF_SIZE];
    errbuf[0] = '\0';
    pcap_t *p = pcap_fopen_offline(fp, errbuf); /* owns fp when it succeeds; pcap_close closes it */
    if (!p) {
        fclose(fp);
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s: not a capture file lidarsim reads (libpcap: %s)", path, errbuf);
    }
    lsim_pcap_reader *r = calloc(1, sizeof *r);
    unsigned char *data = malloc((size_t)LSIM_PCAP_MAX_PENDING * MAX_DATAGRAM);
    char *name = malloc(strlen(path) + 1);
    if (!r || !data || !name) {
        free(r);
        free(data);
        free(name);
        pcap_close(p);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "%s: out of memory opening the recording", path);
    }
    strcpy(name, path);
    r->ctx = ctx;
    r->path = name;
    r->pcap = p;
    r->link = pcap_datalink(p);
    r->data = data;
    for (int i = 0; i < LSIM_PCAP_MAX_PENDING; ++i)
        r->slot[i].data = data + (size_t)i * MAX_DATAGRAM;
    if (r->link != DLT_EN10MB && r->link != DLT_LINUX_SLL && r->link != DLT_NULL && r->link != DLT_RAW &&
        r->link != DLT_IPV4) {
        st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s: link type %d (%s); lidarsim reads captures of Ethernet, Linux cooked "
                       "(any), loopback or raw IP", path, r->link, pcap_datalink_val_to_name(r->link) ?
                       pcap_datalink_val_to_name(r->link) : "unknown");
        lsim_pcap_close(r);
        return st;
    }
    *out = r;
    return LSIM_OK;
}

void lsim_pcap_close(lsim_pcap_reader *r)
{
    if (!r)
        return;
    if (r->pcap)
        pcap_close(r->pcap);
    free(r->data);
    free(r->path);
    free(r);
}

void lsim_pcap_counts_get(const lsim_pcap_reader *r, lsim_pcap_counts *out)
{
    *out = r->counts;
}

static uint16_t be16(const unsigned char *b) { return (uint16_t)(b[0] << 8 | b[1]); }
static uint32_t be32(const unsigned char *b) { return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3]; }

/* The IPv4 packet of a record: its offset, or 0 with *skip for another protocol. */
static int link_payload(const lsim_pcap_reader *r, const unsigned char *d, size_t n, size_t *at)
{
    size_t o = 0;
    uint16_t type;
    switch (r->link) {
    case DLT_EN10MB:
        if (n < 14)
            return 0;
        type = be16(d + 12);
        o = 14;
        for (int tags = 0; (type == 0x8100 || type == 0x88A8 || type == 0x9100) && tags < 8; ++tags) {
            if (n < o + 4)
                return 0;
            type = be16(d + o + 2);
            o += 4;
        }
        if (type != 0x0800)
            return 0;
        break;
    case DLT_LINUX_SLL:
        if (n < 16 || be16(d + 14) != 0x0800)
            return 0;
        o = 16;
        break;
    case DLT_NULL: /* the family in the capturing host's order; 2 is AF_INET everywhere */
        if (n < 4 || !((d[0] == 2 && d[1] == 0 && d[2] == 0 && d[3] == 0) || (d[0] == 0 && d[1] == 0 && d[2] == 0 && d[3] == 2)))
            return 0;
        o = 4;
        break;
    default: /* raw IP */
        break;
    }
    if (n < o + 20 || (d[o] >> 4) != 4)
        return 0;
    *at = o;
    return 1;
}

static void slot_clear(pending *s)
{
    s->used = 0;
    s->total = -1;
    s->covered = 0;
    memset(s->seen, 0, sizeof s->seen);
}

/* Add a fragment; *done when the datagram is whole (then s->data holds its IP payload). */
static lsim_status reassemble(lsim_pcap_reader *r, uint32_t src, uint32_t dst, uint16_t id, size_t offset,
                              int more, const unsigned char *frag, size_t size, pending **done)
{
    const uint64_t rec = r->counts.records;
    *done = NULL;
    ++r->counts.fragments;
    if (offset + size > MAX_DATAGRAM || (more && size % 8 != 0) || (more && size == 0))
        return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s: record %llu: an IPv4 fragment at offset %zu of %zu bytes%s; not a "
                         "fragment of a datagram of at most 65,535 bytes", r->path, (unsigned long long)rec, offset, size,
                         more && size % 8 ? " (not the last, yet not a multiple of 8 bytes)" : "");
    pending *s = NULL, *oldest = NULL;
    for (int i = 0; i < LSIM_PCAP_MAX_PENDING && !s; ++i) {
        pending *t = &r->slot[i];
        if (t->used && t->src == src && t->dst == dst && t->id == id)
            s = t;
    }
    for (int i = 0; i < LSIM_PCAP_MAX_PENDING && !s; ++i)
        if (!r->slot[i].used)
            s = &r->slot[i];
    if (!s) { /* every slot busy: the oldest datagram will not complete (its fragments were lost) */
        for (int i = 0; i < LSIM_PCAP_MAX_PENDING; ++i)
            if (!oldest || r->slot[i].age < oldest->age)
                oldest = &r->slot[i];
        slot_clear(oldest);
        ++r->counts.skipped;
        s = oldest;
    }
    if (!s->used) {
        slot_clear(s);
        s->used = 1;
        s->src = src;
        s->dst = dst;
        s->id = id;
        s->age = rec;
    }
    const size_t first = offset / 8, last = (offset + size + 7) / 8; /* units [first, last) */
    for (size_t u = first; u < last; ++u)
        if (s->seen[u / 8] & (1u << (u % 8))) {
            slot_clear(s);
            return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s: record %llu: an IPv4 fragment (id %u, bytes %zu..%zu) "
                             "overlaps one already received; overlapping fragments are refused", r->path,
                             (unsigned long long)rec, id, offset, offset + size);
        }
    for (size_t u = first; u < last; ++u)
        s->seen[u / 8] |= (unsigned char)(1u << (u % 8));
    s->covered += (uint32_t)(last - first);
    memcpy(s->data + offset, frag, size);
    if (!more) {
        if (s->total >= 0) {
            slot_clear(s);
            return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s: record %llu: a second last fragment of IPv4 datagram %u",
                             r->path, (unsigned long long)rec, id);
        }
        s->total = (long)(offset + size);
    }
    if (s->total >= 0 && s->covered == (uint32_t)((s->total + 7) / 8)) {
        s->used = 0;
        *done = s;
    }
    return LSIM_OK;
}

/* The UDP datagram of an IP payload (`ip` bytes): LSIM_OK with *got, or a parse error. */
static lsim_status udp_of(lsim_pcap_reader *r, const unsigned char *u, size_t n, lsim_udp_datagram *out, int *got)
{
    if (n < 8 || be16(u + 4) < 8 || be16(u + 4) > n)
        return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s: record %llu: a UDP header of length %u in %zu bytes of IP payload",
                         r->path, (unsigned long long)r->counts.records, n < 8 ? 0u : (unsigned)be16(u + 4), n);
    out->src_port = be16(u);
    out->dst_port = be16(u + 2);
    out->payload = u + 8;
    out->size = (size_t)be16(u + 4) - 8;
    out->record = r->counts.records;
    ++r->counts.udp;
    *got = 1;
    return LSIM_OK;
}

lsim_status lsim_pcap_next(lsim_pcap_reader *r, lsim_udp_datagram *out, int *got)
{
    *got = 0;
    for (;;) {
        struct pcap_pkthdr *h = NULL;
        const unsigned char *d = NULL;
        const int rc = pcap_next_ex(r->pcap, &h, &d);
        if (rc == PCAP_ERROR_BREAK)
            return LSIM_OK;
        if (rc != 1)
            return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s: record %llu: the capture is damaged or cut short "
                             "(libpcap: %s)", r->path, (unsigned long long)r->counts.records + 1, pcap_geterr(r->pcap));
        if (++r->counts.records > LSIM_PCAP_MAX_RECORDS)
            return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s: more than %u records; cut the recording (editcap -r)",
                             r->path, LSIM_PCAP_MAX_RECORDS);
        const size_t n = h->caplen;
        size_t o = 0;
        if (!link_payload(r, d, n, &o) || d[o + 9] != 17) {
            ++r->counts.skipped;
            continue;
        }
        const unsigned char *ip = d + o;
        const size_t ihl = (size_t)(ip[0] & 15u) * 4, total = be16(ip + 2);
        if (ihl < 20 || total < ihl || o + ihl > n)
            return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s: record %llu: an IPv4 header of %zu bytes, total length %zu: "
                             "not a valid IPv4 packet", r->path, (unsigned long long)r->counts.records, ihl, total);
        if (o + total > n)
            return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s: record %llu: the IPv4 packet has %zu bytes but the record "
                             "holds %zu of them%s", r->path, (unsigned long long)r->counts.records, total, n - o,
                             h->caplen < h->len ? " (the capture's snaplen cut it: capture again with tcpdump -s 0)" : "");
        out->time_s = (double)h->ts.tv_sec + 1e-6 * (double)h->ts.tv_usec;
        const uint16_t frag = be16(ip + 6);
        const int more = (frag & 0x2000) != 0;
        const size_t offset = (size_t)(frag & 0x1FFF) * 8;
        if (!more && offset == 0) {
            lsim_status st = udp_of(r, ip + ihl, total - ihl, out, got);
            return st;
        }
        pending *done = NULL;
        lsim_status st = reassemble(r, be32(ip + 12), be32(ip + 16), be16(ip + 4), offset, more, ip + ihl, total - ihl,
                                    &done);
        if (st != LSIM_OK)
            return st;
        if (done)
            return udp_of(r, done->data, (size_t)done->total, out, got);
    }
}
