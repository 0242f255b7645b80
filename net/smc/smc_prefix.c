// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: the IP prefixes of SMC v1.
 *
 * SMC v1 has no routing: both ends must sit on one LAN.  The client's
 * Proposal names its subnet, the prefix of its IPv4 address or the
 * prefixes of the IPv6 addresses of the interface it sends on.  The
 * server takes v1 only when the interface it answers on has an address
 * in one of them, with the same prefix length.
 */

#include <linux/inetdevice.h>
#include <net/addrconf.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "smc_hs.h"
#include "smc_ism.h"
#include "smc_sock.h"

/* The local IPv4 address of @sk, IPv4-mapped ones included, or 0 */
static __be32 smc_prefix_v4_addr(const struct sock *sk)
{
	if (sk->sk_family == AF_INET)
		return inet_sk(sk)->inet_saddr;
#if IS_ENABLED(CONFIG_IPV6)
	if (ipv6_addr_v4mapped(&sk->sk_v6_rcv_saddr))
		return sk->sk_v6_rcv_saddr.s6_addr32[3];
#endif
	return 0;
}

/* The local address of connected @sk as a GID: IPv4-mapped or IPv6 */
void smc_prefix_gid(const struct sock *sk, struct in6_addr *gid)
{
	__be32 v4 = smc_prefix_v4_addr(sk);

	memset(gid, 0, sizeof(*gid));
	if (v4)
		ipv6_addr_set_v4mapped(v4, gid);
#if IS_ENABLED(CONFIG_IPV6)
	else if (sk->sk_family == AF_INET6)
		*gid = sk->sk_v6_rcv_saddr;
#endif
}

/* The netdev connected @sk sends on, referenced, or NULL */
struct net_device *smc_prefix_dev(struct sock *sk)
{
	struct dst_entry *dst = sk_dst_get(sk);
	struct net_device *ndev = NULL;

	if (!dst)
		return NULL;
	if (dst->dev) {
		ndev = dst->dev;
		dev_hold(ndev);
	}
	dst_release(dst);
	return ndev;
}

static int smc_prefix_fill_v4(struct net_device *ndev, __be32 addr,
			      struct smc_clc_proposal *p)
{
	const struct in_ifaddr *ifa;
	struct in_device *idev;
	int rc = -ENOENT;

	rcu_read_lock();
	idev = __in_dev_get_rcu(ndev);
	if (idev) {
		in_dev_for_each_ifa_rcu(ifa, idev) {
			if (!inet_ifa_match(addr, ifa))
				continue;
			p->ipv4_subnet = ntohl(ifa->ifa_local & ifa->ifa_mask);
			p->ipv4_prefix_len = inet_mask_len(ifa->ifa_mask);
			rc = 0;
			break;
		}
	}
	rcu_read_unlock();
	return rc;
}

#if IS_ENABLED(CONFIG_IPV6)
/* Up to SMC_CLC_MAX_V6_PREFIX prefixes of @ndev's non-link-local addresses */
static int smc_prefix_fill_v6(struct net_device *ndev,
			      struct smc_clc_proposal *p)
{
	struct inet6_ifaddr *ifp;
	struct inet6_dev *idev;
	struct in6_addr pfx;
	unsigned int n = 0;

	rcu_read_lock();
	idev = __in6_dev_get(ndev);
	if (idev) {
		read_lock_bh(&idev->lock);
		list_for_each_entry(ifp, &idev->addr_list, if_list) {
			if (n == SMC_CLC_MAX_V6_PREFIX)
				break;
			if (ipv6_addr_type(&ifp->addr) & IPV6_ADDR_LINKLOCAL)
				continue;
			ipv6_addr_prefix(&pfx, &ifp->addr, ifp->prefix_len);
			memcpy(p->ipv6[n].prefix, &pfx, sizeof(pfx));
			p->ipv6[n].prefix_len = ifp->prefix_len;
			n++;
		}
		read_unlock_bh(&idev->lock);
	}
	rcu_read_unlock();
	p->ipv6_cnt = n;
	return n ? 0 : -ENOENT;
}

/* Has @ndev an address in one of the Proposal's IPv6 prefixes? */
static bool smc_prefix_match_v6(struct net_device *ndev,
				const struct smc_clc_proposal *p)
{
	const struct in6_addr *pfx;
	struct inet6_ifaddr *ifp;
	struct inet6_dev *idev;
	bool match = false;
	unsigned int i;

	rcu_read_lock();
	idev = __in6_dev_get(ndev);
	if (idev) {
		read_lock_bh(&idev->lock);
		list_for_each_entry(ifp, &idev->addr_list, if_list) {
			if (ipv6_addr_type(&ifp->addr) & IPV6_ADDR_LINKLOCAL)
				continue;
			for (i = 0; i < p->ipv6_cnt && !match; i++) {
				pfx = (const struct in6_addr *)p->ipv6[i].prefix;
				match = ifp->prefix_len ==
					p->ipv6[i].prefix_len &&
					ipv6_prefix_equal(&ifp->addr, pfx,
							  ifp->prefix_len);
			}
			if (match)
				break;
		}
		read_unlock_bh(&idev->lock);
	}
	rcu_read_unlock();
	return match;
}
#else
static int smc_prefix_fill_v6(struct net_device *ndev,
			      struct smc_clc_proposal *p)
{
	return -EAFNOSUPPORT;
}

static bool smc_prefix_match_v6(struct net_device *ndev,
				const struct smc_clc_proposal *p)
{
	return false;
}
#endif

/* Client: the Proposal's prefixes for connected @sk; 0 or -ENOENT */
int smc_prefix_fill(struct sock *sk, struct smc_clc_proposal *p)
{
	__be32 v4 = smc_prefix_v4_addr(sk);
	struct net_device *ndev;
	int rc;

	ndev = smc_prefix_dev(sk);
	if (!ndev)
		return -ENOENT;
	p->ipv4_subnet = 0;
	p->ipv4_prefix_len = 0;
	p->ipv6_cnt = 0;
	if (v4)
		rc = smc_prefix_fill_v4(ndev, v4, p);
	else
		rc = smc_prefix_fill_v6(ndev, p);
	dev_put(ndev);
	return rc;
}

/* Server: does connected @sk's interface share a prefix of @p? */
bool smc_prefix_match(struct sock *sk, const struct smc_clc_proposal *p)
{
	const struct in_ifaddr *ifa;
	struct net_device *ndev;
	struct in_device *idev;
	bool match = false;

	ndev = smc_prefix_dev(sk);
	if (!ndev)
		return false;
	if (!smc_prefix_v4_addr(sk)) {
		match = smc_prefix_match_v6(ndev, p);
		goto out;
	}
	rcu_read_lock();
	idev = __in_dev_get_rcu(ndev);
	if (idev) {
		in_dev_for_each_ifa_rcu(ifa, idev) {
			if (inet_mask_len(ifa->ifa_mask) ==
			    p->ipv4_prefix_len &&
			    inet_ifa_match(htonl(p->ipv4_subnet), ifa)) {
				match = true;
				break;
			}
		}
	}
	rcu_read_unlock();
out:
	dev_put(ndev);
	return match;
}
