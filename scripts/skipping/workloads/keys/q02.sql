select count(*) as n from orders where o_orderkey between 300000 and 306000
