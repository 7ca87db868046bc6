/* UDP datagrams out of a capture file (pcap or pcapng, through libpcap), for the recording
 * readers. The file is opened by the one opener (core/file_open.h: a regular file of at most the
 * LSIM_INPUT_RECORDING bound), handed to libpcap as a stream. Link layers: Ethernet (with any
 * number of 802.1Q / 802.1ad VLAN tags), Linux cooked (SLL), BSD loopback and raw IP. Network:
 * IPv4 (options allowed); fragments are reassembled (up to LSIM_PCAP_MAX_PENDING datagrams at
 * once, each at most 65,535 bytes, overlapping fragments refused). Records that are not IPv4 UDP
 * are skipped and counted. Every length is checked against what the record holds before use; a
 * record cut short by the capture's snaplen is an error naming it. */
#ifndef LSIM_RECORDING_PCAP_READ_H
#define LSIM_RECORDING_PCAP_READ_H

#include "lidarsim.h"

#include <stddef.h>
#include <stdint.h>

/* At most this many records are read from a file (a 10 Hz Ouster sends ~6,400 a second: over
 * four hours); datagrams in reassembly at once. */
#define LSIM_PCAP_MAX_RECORDS 100000000u
#define LSIM_PCAP_MAX_PENDING 16

typedef struct lsim_pcap_reader lsim_pcap_reader;

typedef struct lsim_udp_datagram {
    const unsigned char *payload; /* valid until the next call */
    size_t size;
    uint16_t src_port, dst_port;
    double time_s;      /* capture time of its last record, seconds since 1970 */
    uint64_t record;    /* that record's number in the file, from 1 (as Wireshark counts) */
} lsim_udp_datagram;

typedef struct lsim_pcap_counts {
    uint64_t records, udp, skipped, fragments;
} lsim_pcap_counts;

/* Open `path`; messages name it. */
lsim_status lsim_pcap_open(lsim_context *ctx, const char *path, lsim_pcap_reader **out);
/* The next UDP datagram: LSIM_OK and *got 1, or LSIM_OK and *got 0 at the end of the file;
 * errors name the file and the record. */
lsim_status lsim_pcap_next(lsim_pcap_reader *r, lsim_udp_datagram *out, int *got);
void lsim_pcap_counts_get(const lsim_pcap_reader *r, lsim_pcap_counts *out);
void lsim_pcap_close(lsim_pcap_reader *r);

#endif
